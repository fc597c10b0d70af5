package anthropic_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

var hello = llm.Message{Content: []llm.Part{llm.Text("Hello there, how are you?")}}

func TestModel_Faults(t *testing.T) {
	tests := []struct {
		name       string
		turn       llmtest.ServerTurn
		kind       llm.ErrorKind
		status     int
		retryAfter time.Duration
		retryable  bool
		partial    string
	}{
		{"rate limit", llmtest.ServerTurn{Status: 429, RetryAfter: "7", ErrorMessage: "Number of request tokens has exceeded your per-minute rate limit"},
			llm.KindRateLimit, 429, 7 * time.Second, true, ""},
		{"overloaded 529", llmtest.ServerTurn{Status: 529, ErrorMessage: "Overloaded"}, llm.KindOverloaded, 529, 0, true, ""},
		{"api error 500", llmtest.ServerTurn{Status: 500, ErrorMessage: "Internal server error"}, llm.KindOverloaded, 500, 0, true, ""},
		{"auth 401", llmtest.ServerTurn{Status: 401, ErrorMessage: "invalid x-api-key"}, llm.KindAuth, 401, 0, false, ""},
		{"permission 403", llmtest.ServerTurn{Status: 403}, llm.KindAuth, 403, 0, false, ""},
		{"not found 404", llmtest.ServerTurn{Status: 404, ErrorMessage: "model: claude-nope"}, llm.KindInvalidRequest, 404, 0, false, ""},
		{"invalid 400", llmtest.ServerTurn{Status: 400, ErrorMessage: "messages: text content blocks must be non-empty"}, llm.KindInvalidRequest, 400, 0, false, ""},
		{"credit balance too low", llmtest.ServerTurn{Status: 400, ErrorMessage: "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},
			llm.KindAuth, 400, 0, false, ""},
		{"billing error", llmtest.ServerTurn{Status: 402, ErrorType: "billing_error", ErrorMessage: "billing issue"}, llm.KindAuth, 402, 0, false, ""},
		{"billing error event", llmtest.ServerTurn{Message: hello, Cut: llmtest.CutErrorEvent, CutAfter: 1, ErrorType: "billing_error", ErrorMessage: "billing issue"},
			llm.KindAuth, 0, 0, false, ""},
		{"context overflow", llmtest.ServerTurn{Status: 400, ErrorMessage: "prompt is too long: 213462 tokens > 200000 maximum"},
			llm.KindContextOverflow, 400, 0, false, ""},
		{"error event mid-stream", llmtest.ServerTurn{Message: hello, Chunk: 5, Cut: llmtest.CutErrorEvent, CutAfter: 5, ErrorType: "overloaded_error", ErrorMessage: "Overloaded"},
			llm.KindOverloaded, 0, 0, true, "Hello ther"},
		{"reset before first token", llmtest.ServerTurn{Message: hello, Cut: llmtest.CutReset, CutAfter: 1}, llm.KindTransport, 0, 0, true, ""},
		{"reset before response", llmtest.ServerTurn{Message: hello, Cut: llmtest.CutReset}, llm.KindTransport, 0, 0, true, ""},
		{"reset mid-stream", llmtest.ServerTurn{Message: hello, Chunk: 5, Cut: llmtest.CutReset, CutAfter: 4}, llm.KindTransport, 0, 0, true, "Hello"},
		{"malformed json", llmtest.ServerTurn{Message: hello, Chunk: 5, Cut: llmtest.CutMalformed, CutAfter: 4}, llm.KindTransport, 0, 0, true, "Hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newModel(t, tt.turn)
			evs, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if e.Kind != tt.kind || e.Status != tt.status || e.RetryAfter != tt.retryAfter || e.Retryable() != tt.retryable {
				t.Errorf("got kind %s status %d retry-after %v retryable %v (%v)", e.Kind, e.Status, e.RetryAfter, e.Retryable(), e)
			}
			if quota := strings.Contains(tt.name, "credit") || strings.Contains(tt.name, "billing"); errors.Is(err, llm.ErrQuota) != quota {
				t.Errorf("quota error = %v, want %v", errors.Is(err, llm.ErrQuota), quota)
			}
			if e.Provider != "anthropic" {
				t.Errorf("provider = %q", e.Provider)
			}
			last := evs[len(evs)-1]
			if last.Type != llm.EventError || last.Message == nil || last.Message.StopReason != llm.StopError || last.Message.ErrorMessage == "" {
				t.Errorf("last event = %+v", last)
			}
			if msg.Text() != tt.partial {
				t.Errorf("partial text = %q, want %q", msg.Text(), tt.partial)
			}
		})
	}
}

func TestModel_TruncatedStream(t *testing.T) {
	// A stream cut right before message_stop is a transport failure.
	m, _ := newModel(t, llmtest.ServerTurn{Message: hello, Cut: llmtest.CutReset, CutAfter: 7})
	_, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if llm.KindOf(err) != llm.KindTransport || msg.StopReason != llm.StopError {
		t.Fatalf("err = %v, stop = %s", err, msg.StopReason)
	}
}

func TestModel_Abort(t *testing.T) {
	m, _ := newModel(t, llmtest.ServerTurn{Message: hello, Chunk: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last llm.Event
	var err error
	n := 0
	for ev, e := range m.Stream(ctx, llm.Request{Messages: []llm.Message{llm.UserText("hi")}}) {
		n++
		if n == 3 {
			cancel()
		}
		last, err = ev, e
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if last.Type != llm.EventError || last.Message.StopReason != llm.StopAborted {
		t.Errorf("last = %+v", last.Message)
	}
}

// fakeSleep records retry delays without waiting.
type fakeSleep struct{ delays []time.Duration }

func (f *fakeSleep) sleep(ctx context.Context, d time.Duration) error {
	f.delays = append(f.delays, d)
	return ctx.Err()
}

func TestModel_Retry(t *testing.T) {
	m, srv := newModel(t,
		llmtest.ServerTurn{Status: 429, RetryAfter: "3"},
		llmtest.ServerTurn{Status: 529},
		llmtest.ServerTurn{Message: hello, Cut: llmtest.CutReset, CutAfter: 1},
		llmtest.ServerTurn{Message: hello},
	)
	var fs fakeSleep
	rm := llm.WithRetry(m, llm.RetryPolicy{MaxRetries: 5, BaseDelay: time.Second, MaxDelay: 30 * time.Second,
		Sleep: fs.sleep, Jitter: func() float64 { return 0 }})
	evs, msg, err := collect(t, rm, llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if msg.Text() != hello.Content[0].Text || len(srv.Requests()) != 4 {
		t.Fatalf("text %q after %d requests", msg.Text(), len(srv.Requests()))
	}
	// Backoff 1s, 2s, 4s with jitter 0 halves to 0.5s, 1s, 2s; retry-after 3s wins the first.
	want := []time.Duration{3 * time.Second, time.Second, 2 * time.Second}
	if len(fs.delays) != 3 || fs.delays[0] != want[0] || fs.delays[1] != want[1] || fs.delays[2] != want[2] {
		t.Errorf("delays = %v, want %v", fs.delays, want)
	}
	retries := 0
	for _, ev := range evs {
		if ev.Type == llm.EventRetry {
			retries++
		}
	}
	if retries != 3 {
		t.Errorf("retry events = %d", retries)
	}
}

func TestModel_NoRetry(t *testing.T) {
	tests := []struct {
		name string
		turn llmtest.ServerTurn
	}{
		{"invalid request", llmtest.ServerTurn{Status: 400}},
		{"auth", llmtest.ServerTurn{Status: 401}},
		{"not found", llmtest.ServerTurn{Status: 404}},
		{"reset after the first token", llmtest.ServerTurn{Message: hello, Chunk: 4, Cut: llmtest.CutReset, CutAfter: 5}},
		{"retry-after beyond the cap", llmtest.ServerTurn{Status: 429, RetryAfter: "3600"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, srv := newModel(t, tt.turn, llmtest.ServerTurn{Message: hello})
			var fs fakeSleep
			rm := llm.WithRetry(m, llm.RetryPolicy{MaxRetries: 3, Sleep: fs.sleep})
			_, _, err := collect(t, rm, llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
			if err == nil || len(srv.Requests()) != 1 || len(fs.delays) != 0 {
				t.Errorf("err %v, %d requests, delays %v", err, len(srv.Requests()), fs.delays)
			}
		})
	}
}
