package llm

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestKindForStatus(t *testing.T) {
	tests := []struct {
		status int
		msg    string
		want   ErrorKind
	}{
		{400, "messages.1: tool_use ids must be unique", KindInvalidRequest},
		{400, "prompt is too long: 213462 tokens > 200000 maximum", KindContextOverflow},
		{400, "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000", KindContextOverflow},
		{400, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", KindContextOverflow},
		{400, "Please reduce the length of the messages or completion.", KindContextOverflow},
		{400, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", KindContextOverflow},
		{400, "the request exceeds the available context size, try increasing it", KindContextOverflow},
		{413, "Request too large: too many tokens", KindContextOverflow},
		{413, "Request exceeds the maximum allowed number of bytes.", KindInvalidRequest},
		{401, "invalid x-api-key", KindAuth},
		{403, "forbidden", KindAuth},
		{404, "model not found", KindInvalidRequest},
		{408, "timeout", KindTransport},
		{429, "rate limited", KindRateLimit},
		{500, "internal", KindOverloaded},
		{502, "bad gateway", KindOverloaded},
		{529, "Overloaded", KindOverloaded},
	}
	for _, tt := range tests {
		if got := KindForStatus(tt.status, tt.msg); got != tt.want {
			t.Errorf("KindForStatus(%d, %q) = %s, want %s", tt.status, tt.msg, got, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := map[string]time.Duration{
		"":                              0,
		"7":                             7 * time.Second,
		"1.5":                           1500 * time.Millisecond,
		"0":                             0,
		"-3":                            0,
		"soon":                          0,
		"Fri, 02 Jan 2026 03:05:05 GMT": time.Minute,
		"Fri, 02 Jan 2026 03:00:00 GMT": 0,
	}
	for in, want := range tests {
		if got := ParseRetryAfter(in, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestError(t *testing.T) {
	inner := errors.New("dial tcp: connection refused")
	e := &Error{Kind: KindTransport, Provider: "openai", Err: inner}
	wrapped := fmt.Errorf("stream: %w", e)
	if KindOf(wrapped) != KindTransport || !errors.Is(wrapped, inner) || !e.Retryable() {
		t.Errorf("classification lost through wrapping: %v", wrapped)
	}
	if got := e.Error(); got != "openai: transport: dial tcp: connection refused" {
		t.Errorf("Error() = %q", got)
	}
	o := &Error{Kind: KindContextOverflow, Status: 400, Message: "prompt is too long"}
	if !IsContextOverflow(fmt.Errorf("x: %w", o)) || o.Retryable() || o.Error() != "context_overflow (400): prompt is too long" {
		t.Errorf("overflow error = %q", o.Error())
	}
	if KindOf(inner) != "" || KindOf(nil) != "" {
		t.Error("non-llm errors have no kind")
	}
}

func TestParseThinkingLevel(t *testing.T) {
	for _, s := range []string{"", "off", "low", "medium", "high"} {
		l, err := ParseThinkingLevel(s)
		if err != nil || (s != "" && string(l) != s) {
			t.Errorf("ParseThinkingLevel(%q) = %q, %v", s, l, err)
		}
	}
	if _, err := ParseThinkingLevel("max"); KindOf(err) != KindInvalidRequest {
		t.Errorf("err = %v", err)
	}
	if ThinkingOff.Enabled() || !ThinkingLow.Enabled() || ThinkingLow.ThinkingBudget() >= ThinkingHigh.ThinkingBudget() {
		t.Error("levels out of order")
	}
}
