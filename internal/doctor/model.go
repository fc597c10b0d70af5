package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/view"
)

// PingTimeout bounds doctor's request to each model provider.
const PingTimeout = 10 * time.Second

// ClockReading is a provider's clock, read from the Date of its answer.
type ClockReading struct {
	Local, Remote time.Time
	Source        string
}

// ListModels asks the provider of a model id for its models with the key
// agents would use, returning its base URL as well (llm/provider's
// ListModels).
type ListModels func(ctx context.Context, modelID string) (l llm.Listing, base string, err error)

// Models checks each model of statuses (view.ModelStatus: the default
// model first, then each active project's): a key is set, and the
// provider accepts it, asked once per provider through list with a
// request that costs no tokens. The first answer gives the clock check
// its reading, stamped by now.
func Models(ctx context.Context, statuses []view.ModelStatus, defaultModel string, list ListModels, now func() time.Time) ([]Check, ClockReading) {
	type answer struct {
		listing llm.Listing
		base    string
		took    time.Duration
		err     error
	}
	answers := map[string]answer{}
	var clock ClockReading
	var out []Check
	for _, m := range statuses {
		c := Check{Name: "model " + m.Model}
		used := usedBy(m, defaultModel)
		mid, idErr := llm.ParseModelID(m.Model)
		if m.Problem != "" || idErr != nil {
			c.Status, c.Detail, c.Fix = Fail, m.Problem+used, modelFix(m, mid)
			out = append(out, c)
			continue
		}
		ans, asked := answers[mid.Provider]
		if !asked {
			pctx, cancel := context.WithTimeout(ctx, PingTimeout)
			start := time.Now()
			l, base, err := list(pctx, m.Model)
			cancel()
			ans = answer{listing: l, base: base, took: time.Since(start).Round(time.Millisecond), err: err}
			answers[mid.Provider] = ans
			if err == nil && clock.Remote.IsZero() && !l.Date.IsZero() {
				clock = ClockReading{Local: now(), Remote: l.Date, Source: mid.Provider}
			}
		}
		c.Status, c.Detail, c.Fix = pingVerdict(m, mid, ans.listing, ans.base, ans.took, ans.err)
		c.Detail += used
		out = append(out, c)
	}
	return out, clock
}

// usedBy says which projects use the model, and whether it is the
// default, as the end of a detail.
func usedBy(m view.ModelStatus, defaultModel string) string {
	var who []string
	if m.Model == defaultModel {
		who = append(who, "the default")
	}
	for _, p := range m.Projects {
		if p != "" {
			who = append(who, p)
		}
	}
	return "; used by " + strings.Join(who, ", ")
}

// modelFix says how to make a model agents cannot use usable.
func modelFix(m view.ModelStatus, mid llm.ModelID) string {
	if p, ok := llm.LookupProvider(mid.Provider); ok && strings.Contains(m.Problem, "no API key") {
		return fmt.Sprintf("bonsai credentials set %s (the service reads stored keys; %s works only where it is exported)", p.Name, p.KeyEnv)
	}
	return "choose a model Bonsai knows: bonsai config set model <provider/model>, or bonsai project edit <slug> --model <provider/model>"
}

// pingVerdict turns a provider's answer to the model list into a status,
// detail and fix.
func pingVerdict(m view.ModelStatus, mid llm.ModelID, l llm.Listing, base string, took time.Duration, err error) (Status, string, string) {
	source := ""
	switch m.KeySource {
	case credentials.SourceEnv:
		source = "the key from the environment"
	case credentials.SourceStored:
		source = "the stored key"
	}
	p, _ := llm.LookupProvider(mid.Provider)
	replace := fmt.Sprintf("replace it: bonsai credentials set %s", p.Name)
	if m.KeySource == credentials.SourceEnv {
		replace = fmt.Sprintf("fix or unset %s (then the stored key is used), or store a good one: bonsai credentials set %s", p.KeyEnv, p.Name)
	}
	baseFix := fmt.Sprintf("check the network, or the provider's address: bonsai config set providers.%s.baseURL <url> (now %s)", p.Name, llm.HidePassword(base))
	var le *llm.Error
	errors.As(err, &le)
	switch {
	case err == nil && len(l.Models) > 0 && !l.Has(mid.Model):
		return Warn, fmt.Sprintf("%s answered with %s, but does not list %s", p.Name, source, mid.Model),
			fmt.Sprintf("check the model's name (%s lists %s), then bonsai config set model or bonsai project edit --model", p.Name, sample(l.Models))
	case err == nil && p.Name == "openrouter":
		// OpenRouter lists its models to anyone: the answer proves the
		// address, not the key.
		return OK, fmt.Sprintf("openrouter answered (%s); its model list needs no key, so the key is tried by the first run", took), ""
	case err == nil:
		what := "answered"
		if source != "" {
			what = "accepts " + source
		}
		return OK, fmt.Sprintf("%s %s (%s)", p.Name, what, took), ""
	case errors.Is(err, context.DeadlineExceeded):
		return Fail, fmt.Sprintf("%s did not answer within %s at %s", p.Name, PingTimeout, llm.HidePassword(base)), baseFix
	case llm.KindOf(err) == llm.KindAuth && le != nil && le.Status != 0:
		return Fail, fmt.Sprintf("%s refused %s (HTTP %d: %s)", p.Name, source, le.Status, le.Message), replace
	case le != nil && le.Status == http.StatusNotFound:
		return Fail, fmt.Sprintf("%s has no model list at %s: %s", p.Name, llm.HidePassword(base), le.Message), baseFix
	case llm.KindOf(err) == llm.KindRateLimit || llm.KindOf(err) == llm.KindOverloaded:
		return Warn, fmt.Sprintf("%s is busy: %s", p.Name, llmMessage(err)), "wait and run bonsai doctor again; agents retry by themselves"
	case le != nil && le.Status != 0:
		return Fail, fmt.Sprintf("%s answered HTTP %d: %s", p.Name, le.Status, le.Message), baseFix
	}
	return Fail, fmt.Sprintf("cannot reach %s at %s: %s", p.Name, llm.HidePassword(base), llmMessage(err)), baseFix
}

// llmMessage is a provider error's own message, without the wrapping.
func llmMessage(err error) string {
	var le *llm.Error
	if errors.As(err, &le) && le.Message != "" {
		return le.Message
	}
	return err.Error()
}

// sample names up to three of the listed models.
func sample(models []string) string {
	if len(models) > 3 {
		return strings.Join(models[:3], ", ") + ", …"
	}
	return strings.Join(models, ", ")
}
