package provider_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/provider"
)

// stallIDs are a model of each wire format, with the variables pointing
// them at a fake server, and the number of events after which some text
// has streamed.
var stallIDs = []struct {
	id, baseEnv, suffix string
	content             int
}{
	{"anthropic/claude-haiku-4-5", "ANTHROPIC_BASE_URL", "", 4},
	{"openai/gpt-5-mini", "OPENAI_BASE_URL", "/v1", 6},   // Responses
	{"openai/gpt-4.1-mini", "OPENAI_BASE_URL", "/v1", 4}, // Chat Completions
}

func resolveAt(t *testing.T, id, baseEnv, base string, opts provider.Options) llm.Model {
	t.Helper()
	opts.Getenv = env(map[string]string{baseEnv: base, "ANTHROPIC_API_KEY": "k1", "OPENAI_API_KEY": "k1"})
	opts.Retry = llm.RetryPolicy{MaxRetries: 1, Sleep: func(context.Context, time.Duration) error { return nil }}
	r, err := provider.Resolve(id, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r.Model
}

// TestResolve_StallBeforeTheFirstTokenIsRetriedThenFails: a provider that
// accepts the connection and never answers, or answers and then sends only
// keep-alives, is given up after the idle timeout, retried per the retry
// policy, and then fails with an error naming the provider and the
// timeout; a retry that answers succeeds.
func TestResolve_StallBeforeTheFirstTokenIsRetriedThenFails(t *testing.T) {
	hi := llm.Message{Content: []llm.Part{llm.Text("hi")}}
	stalls := map[string]llmtest.ServerTurn{
		"no answer":       {Cut: llmtest.CutHang},
		"quiet stream":    {Message: hi, Cut: llmtest.CutHang, CutAfter: 1},
		"keep-alive only": {Message: hi, Cut: llmtest.CutPings, CutAfter: 1},
	}
	for _, m := range stallIDs {
		for name, stall := range stalls {
			t.Run(m.id+"/"+name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(t, stall, stall)
				// The timeout only needs to be longer than the fake takes to
				// answer a turn that does answer.
				model := resolveAt(t, m.id, m.baseEnv, srv.URL+m.suffix, provider.Options{IdleTimeout: time.Second})
				var retries int
				_, err := llm.Collect(func(yield func(llm.Event, error) bool) {
					for ev, err := range model.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hello")}}) {
						if ev.Type == llm.EventRetry {
							retries++
						}
						if !yield(ev, err) {
							return
						}
					}
				})
				provName, _, _ := strings.Cut(m.id, "/")
				want := provName + ": transport: no response for 1s (idle timeout)"
				if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, llm.ErrIdleTimeout) {
					t.Fatalf("err = %v, want %q…", err, want)
				}
				if retries != 1 || len(srv.Requests()) != 2 {
					t.Errorf("%d retries, %d requests; want 1 and 2", retries, len(srv.Requests()))
				}

				srv.Push(stall, llmtest.ServerTurn{Message: hi})
				msg, err := llm.Collect(model.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hello")}}))
				if err != nil || msg.Text() != "hi" {
					t.Errorf("after a stall, the retry got %q, %v", msg.Text(), err)
				}
			})
		}
	}
}

// TestResolve_StallAfterContentFails: once content streamed, a stream that
// goes quiet or sends only keep-alives is not retried (its content was
// shown) but ends with the idle error; one without end is cut at the size
// cap.
func TestResolve_StallAfterContentFails(t *testing.T) {
	long := llm.Message{Content: []llm.Part{llm.Text("the beginning of a long answer")}}
	cases := map[string]struct {
		turn llmtest.ServerTurn
		idle time.Duration // longer than the fake takes to send its first events
		want string
	}{
		"quiet":     {llmtest.ServerTurn{Message: long, Cut: llmtest.CutHang}, time.Second, "no response for 1s (idle timeout)"},
		"keepalive": {llmtest.ServerTurn{Message: long, Cut: llmtest.CutPings}, time.Second, "no response for 1s (idle timeout)"},
		"endless":   {llmtest.ServerTurn{Message: long, Cut: llmtest.CutEndless}, time.Minute, "response larger than 1 MiB: the stream was cut off"},
	}
	for _, m := range stallIDs {
		for name, c := range cases {
			t.Run(m.id+"/"+name, func(t *testing.T) {
				t.Parallel()
				turn := c.turn
				turn.CutAfter = m.content
				srv := llmtest.NewServer(t, turn, llmtest.ServerTurn{Message: long})
				model := resolveAt(t, m.id, m.baseEnv, srv.URL+m.suffix,
					provider.Options{IdleTimeout: c.idle, MaxResponseBytes: 1 << 20})
				msg, err := llm.Collect(model.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hello")}}))
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("err = %v, want one saying %q", err, c.want)
				}
				if !strings.HasPrefix(msg.Text(), "the beginning") || msg.StopReason != llm.StopError {
					t.Errorf("partial message = %.80q (%s)", msg.Text(), msg.StopReason)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d requests; a stream that showed content must not be retried", n)
				}
			})
		}
	}
}

func TestResolve_BadLimitVariables(t *testing.T) {
	for k, v := range map[string]string{provider.IdleTimeoutEnv: "soon", provider.MaxResponseBytesEnv: "-3"} {
		_, err := provider.Resolve("anthropic/claude-haiku-4-5", provider.Options{Getenv: env(map[string]string{"ANTHROPIC_API_KEY": "k1", k: v})})
		if llm.KindOf(err) != llm.KindInvalidRequest || !strings.Contains(err.Error(), fmt.Sprintf("%s=%q", k, v)) {
			t.Errorf("%s=%s: err = %v", k, v, err)
		}
	}
}
