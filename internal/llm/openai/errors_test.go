package openai_test

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
		partial    string
	}{
		{"rate limit", llmtest.ServerTurn{Status: 429, RetryAfter: "2", ErrorMessage: "Rate limit reached for gpt-5 on tokens per min (TPM)"},
			llm.KindRateLimit, 429, 2 * time.Second, ""},
		{"rate limit http date", llmtest.ServerTurn{Status: 429, RetryAfter: time.Now().Add(90 * time.Second).UTC().Format(time.RFC1123)},
			llm.KindRateLimit, 429, 0, ""},
		{"insufficient quota", llmtest.ServerTurn{Status: 429, ErrorType: "insufficient_quota", ErrorMessage: "You exceeded your current quota"},
			llm.KindAuth, 429, 0, ""},
		{"server error", llmtest.ServerTurn{Status: 500}, llm.KindOverloaded, 500, 0, ""},
		{"unavailable", llmtest.ServerTurn{Status: 503, ErrorMessage: "The engine is currently overloaded"}, llm.KindOverloaded, 503, 0, ""},
		{"auth", llmtest.ServerTurn{Status: 401, ErrorMessage: "Incorrect API key provided"}, llm.KindAuth, 401, 0, ""},
		{"not found", llmtest.ServerTurn{Status: 404, ErrorMessage: "The model `gpt-9` does not exist"}, llm.KindInvalidRequest, 404, 0, ""},
		{"context overflow by code", llmtest.ServerTurn{Status: 400, ErrorType: "context_length_exceeded",
			ErrorMessage: "Input tokens exceed the configured limit of 272000 tokens."}, llm.KindContextOverflow, 400, 0, ""},
		{"context overflow by message", llmtest.ServerTurn{Status: 400,
			ErrorMessage: "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens."}, llm.KindContextOverflow, 400, 0, ""},
		{"error chunk mid-stream", llmtest.ServerTurn{Message: hello, Chunk: 5, Cut: llmtest.CutErrorEvent, CutAfter: 3}, llm.KindOverloaded, 0, 0, "Hello ther"},
		{"quota chunk", llmtest.ServerTurn{Message: hello, Cut: llmtest.CutErrorEvent, CutAfter: 1, ErrorType: "insufficient_quota",
			ErrorMessage: "You exceeded your current quota, please check your plan and billing details."}, llm.KindAuth, 0, 0, ""},
		{"reset before response", llmtest.ServerTurn{Message: hello, Cut: llmtest.CutReset}, llm.KindTransport, 0, 0, ""},
		{"reset mid-stream", llmtest.ServerTurn{Message: hello, Chunk: 5, Cut: llmtest.CutReset, CutAfter: 2}, llm.KindTransport, 0, 0, "Hello"},
		{"reset before [DONE]", llmtest.ServerTurn{Message: hello, Cut: llmtest.CutReset, CutAfter: 4}, llm.KindTransport, 0, 0, hello.Text()},
		{"malformed json", llmtest.ServerTurn{Message: hello, Chunk: 5, Cut: llmtest.CutMalformed, CutAfter: 2}, llm.KindTransport, 0, 0, "Hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newModel(t, gpt5, tt.turn)
			evs, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if e.Kind != tt.kind || e.Status != tt.status || e.Provider != "openai" {
				t.Errorf("got kind %s status %d provider %s (%v)", e.Kind, e.Status, e.Provider, e)
			}
			if tt.retryAfter != 0 && e.RetryAfter != tt.retryAfter {
				t.Errorf("retry-after = %v, want %v", e.RetryAfter, tt.retryAfter)
			}
			if quota := strings.Contains(tt.name, "quota"); errors.Is(err, llm.ErrQuota) != quota {
				t.Errorf("quota error = %v, want %v", errors.Is(err, llm.ErrQuota), quota)
			}
			if tt.name == "rate limit http date" && (e.RetryAfter < 80*time.Second || e.RetryAfter > 91*time.Second) {
				t.Errorf("retry-after from date = %v", e.RetryAfter)
			}
			last := evs[len(evs)-1]
			if last.Type != llm.EventError || last.Message.StopReason != llm.StopError {
				t.Errorf("last event = %+v", last)
			}
			if msg.Text() != tt.partial {
				t.Errorf("partial = %q, want %q", msg.Text(), tt.partial)
			}
		})
	}
}

func TestModel_RetryThenSucceed(t *testing.T) {
	m, srv := newModel(t, gpt5,
		llmtest.ServerTurn{Status: 503},
		llmtest.ServerTurn{Message: hello, Cut: llmtest.CutReset, CutAfter: 1}, // only the role chunk arrived
		llmtest.ServerTurn{Status: 429, RetryAfter: "5"},
		llmtest.ServerTurn{Message: hello},
	)
	var delays []time.Duration
	rm := llm.WithRetry(m, llm.RetryPolicy{MaxRetries: 3, BaseDelay: 100 * time.Millisecond,
		Sleep:  func(_ context.Context, d time.Duration) error { delays = append(delays, d); return nil },
		Jitter: func() float64 { return 0.5 }})
	_, msg, err := collect(t, rm, llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if msg.Text() != hello.Text() || len(srv.Requests()) != 4 {
		t.Fatalf("text %q after %d requests", msg.Text(), len(srv.Requests()))
	}
	// 100ms·2^n with jitter 0.5 on the upper half: 75ms, 150ms; then retry-after 5s.
	if len(delays) != 3 || delays[0] != 75*time.Millisecond || delays[1] != 150*time.Millisecond || delays[2] != 5*time.Second {
		t.Errorf("delays = %v", delays)
	}
}

func TestModel_RetryGivesUp(t *testing.T) {
	m, srv := newModel(t, gpt5, llmtest.ServerTurn{Status: 500}, llmtest.ServerTurn{Status: 500}, llmtest.ServerTurn{Status: 500})
	rm := llm.WithRetry(m, llm.RetryPolicy{MaxRetries: 2, Sleep: func(context.Context, time.Duration) error { return nil }})
	_, _, err := collect(t, rm, llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if llm.KindOf(err) != llm.KindOverloaded || len(srv.Requests()) != 3 {
		t.Errorf("err %v after %d requests", err, len(srv.Requests()))
	}
}
