package runui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// Print runs one prompt and prints only the final assistant text, its
// control characters shown as escapes (termsafe.Text): the text is the
// model's, and a terminal would act on them. --mode json carries the
// exact text.
func (rt *Run) Print(ctx context.Context, prompt string) error {
	res := rt.Agent.Prompt(ctx, llm.UserText(prompt))
	if err := rt.runError(res); err != nil {
		return err
	}
	text := termsafe.Text(res.Text())
	if text != "" && text[len(text)-1] != '\n' {
		text += "\n"
	}
	_, err := io.WriteString(rt.Stdout, text)
	return err
}

// JSON runs one prompt, printing the session header and then every
// event as one JSON line.
func (rt *Run) JSON(ctx context.Context, prompt string) error {
	w := newJSONLines(rt.Stdout)
	if err := w.write(rt.Agent.Session().Header()); err != nil {
		return err
	}
	if len(rt.MCP) > 0 {
		line := struct {
			Type    string `json:"type"`
			Servers []any  `json:"servers"`
		}{"mcp", rt.MCP}
		if err := w.write(line); err != nil {
			return err
		}
	}
	rt.Events.Set(func(e agent.Event) { _ = w.write(e) })
	res := rt.Agent.Prompt(ctx, llm.UserText(prompt))
	return rt.runError(res)
}

// runError turns a run that did not end normally into an error (exit 1),
// with a hint naming the variable to check when the provider refused the
// key or could not be reached.
func (rt *Run) runError(res agent.Result) error {
	if res.Reason == agent.EndStop {
		return nil
	}
	msg := fmt.Sprintf("run ended (%s)", res.Reason)
	if res.Detail != "" {
		msg += ": " + res.Detail
	}
	if hint := rt.hint(res.Err); hint != "" {
		msg += "\n" + hint
	}
	return errors.New(rt.redact(msg))
}

// hint says which variable to look at for an auth or connection failure.
func (rt *Run) hint(err error) string {
	mid, perr := llm.ParseModelID(rt.Agent.Model().ID)
	if err == nil || perr != nil {
		return ""
	}
	p, ok := llm.LookupProvider(mid.Provider)
	if !ok {
		return ""
	}
	// The base URL may hold a password: it is never printed.
	base := rt.Getenv(p.BaseURLEnv)
	if base == "" {
		base = p.DefaultBaseURL
	}
	base = llm.HidePassword(base)
	switch llm.KindOf(err) {
	case llm.KindAuth:
		if errors.Is(err, llm.ErrQuota) {
			return fmt.Sprintf("hint: %s says the account's quota or credit is used up: add credit or raise the limit in its billing settings; waiting does not help", p.Name)
		}
		return fmt.Sprintf("hint: the provider refused the key: check %s or 'bonsai credentials set %s'", p.KeyEnv, p.Name)
	case llm.KindTransport:
		switch {
		case errors.Is(err, llm.ErrIdleTimeout):
			return fmt.Sprintf("hint: %s accepted the request but stopped answering; %s sets the idle timeout", base, llmprovider.IdleTimeoutEnv)
		case errors.Is(err, llm.ErrResponseTooLarge):
			return fmt.Sprintf("hint: %s sent an answer without end; %s sets the size cap", base, llmprovider.MaxResponseBytesEnv)
		}
		return fmt.Sprintf("hint: could not talk to %s: is the server running? Set %s or 'bonsai config set providers.%s.baseURL' to reach another one", base, p.BaseURLEnv, p.Name)
	case llm.KindInvalidRequest:
		if le, ok := errors.AsType[*llm.Error](err); ok && le.Status == 404 && rt.Getenv(p.BaseURLEnv) != "" {
			return fmt.Sprintf("hint: %s=%s: check that it is the API root (%s)", p.BaseURLEnv, base, p.DefaultBaseURL)
		}
	}
	return ""
}

// jsonLines writes values as JSON lines, one writer at a time.
type jsonLines struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func newJSONLines(w io.Writer) *jsonLines { return &jsonLines{w: w} }

func (j *jsonLines) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	if _, err := j.w.Write(b); err != nil {
		j.err = fmt.Errorf("write output: %w", err)
	}
	return j.err
}
