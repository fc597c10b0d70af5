package cli

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
)

// runPrint runs one prompt and prints only the final assistant text.
func (rt *agentRun) runPrint(ctx context.Context, prompt string) error {
	res := rt.agent.Prompt(ctx, llm.UserText(prompt))
	if err := rt.runError(res); err != nil {
		return err
	}
	text := res.Text()
	if text != "" && text[len(text)-1] != '\n' {
		text += "\n"
	}
	_, err := io.WriteString(rt.a.stdout, text)
	return err
}

// runJSON runs one prompt, printing the session header and then every
// event as one JSON line.
func (rt *agentRun) runJSON(ctx context.Context, prompt string) error {
	w := newJSONLines(rt.a.stdout)
	if err := w.write(rt.agent.Session().Header()); err != nil {
		return err
	}
	rt.setHandler(func(e agent.Event) { _ = w.write(e) })
	res := rt.agent.Prompt(ctx, llm.UserText(prompt))
	return rt.runError(res)
}

// runError turns a run that did not end normally into an error (exit 1),
// with a hint naming the variable to check when the provider refused the
// key or could not be reached.
func (rt *agentRun) runError(res agent.Result) error {
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
	return errors.New(rt.redact.String(msg))
}

// hint says which variable to look at for an auth or connection failure.
func (rt *agentRun) hint(err error) string {
	mid, perr := llm.ParseModelID(rt.agent.Model().ID)
	if err == nil || perr != nil {
		return ""
	}
	p, ok := llm.LookupProvider(mid.Provider)
	if !ok {
		return ""
	}
	// The base URL may hold a password: it is never printed.
	base := rt.a.getenv(p.BaseURLEnv)
	if base == "" {
		base = p.DefaultBaseURL
	}
	base = llm.HidePassword(base)
	switch llm.KindOf(err) {
	case llm.KindAuth:
		return fmt.Sprintf("hint: the provider refused the key: check %s", p.KeyEnv)
	case llm.KindTransport:
		switch {
		case errors.Is(err, llm.ErrIdleTimeout):
			return fmt.Sprintf("hint: %s accepted the request but stopped answering; %s sets the idle timeout", base, llmprovider.IdleTimeoutEnv)
		case errors.Is(err, llm.ErrResponseTooLarge):
			return fmt.Sprintf("hint: %s sent an answer without end; %s sets the size cap", base, llmprovider.MaxResponseBytesEnv)
		}
		return fmt.Sprintf("hint: could not talk to %s: is the server running? Set %s to reach another one", base, p.BaseURLEnv)
	case llm.KindInvalidRequest:
		if le, ok := errors.AsType[*llm.Error](err); ok && le.Status == 404 && rt.a.getenv(p.BaseURLEnv) != "" {
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
