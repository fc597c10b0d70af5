package openai_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

// replayed returns a Responses model of provider talking to a real HTTP
// server that plays the recording testdata/responses/name, and the
// notices the model reported.
func replayed(t *testing.T, provider, name string) (*openai.ResponsesModel, *notices) {
	t.Helper()
	rec := llmtest.LoadRecording(t, filepath.Join("testdata", "responses", name))
	srv := llmtest.NewServer(t, llmtest.ServerTurn{Recorded: rec})
	n := &notices{}
	return openai.NewResponses(openai.Config{Model: "m", APIKey: "k", BaseURL: srv.URL + "/v1", Provider: provider,
		Info: gpt5, Warn: n.add}), n
}

// notices collects what a model reports through Config.Warn.
type notices struct {
	mu   sync.Mutex
	msgs []string
}

func (n *notices) add(msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.msgs = append(n.msgs, msg)
}

func (n *notices) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.msgs...)
}

// checked streams req through llmtest.CheckStream (one terminal event,
// parts opened and ended in order, the final message what the events
// build) and returns the events too.
func checked(t *testing.T, m llm.Model, req llm.Request) ([]llm.Event, llm.Message, error) {
	t.Helper()
	var evs []llm.Event
	seq := func(yield func(llm.Event, error) bool) {
		for ev, err := range m.Stream(context.Background(), req) {
			evs = append(evs, ev)
			if !yield(ev, err) {
				return
			}
		}
	}
	msg, err := llmtest.CheckStream(t, seq)
	return evs, msg, err
}

var hi = llm.Request{Messages: []llm.Message{llm.UserText("hi")}}

// Servers that stream raw reasoning open it with a content part of type
// reasoning_text: it is one thinking part, with no empty text part
// beside it.
func TestResponses_RecordedRawReasoning(t *testing.T) {
	tests := []struct {
		provider, file string
		parts          string // each part's type and text
		events         string
	}{
		{"deepseek", "deepseek_reasoning.sse",
			"thinking:First, read the question.\n\nIt asks for the capital of France. | text:Paris.",
			"thinking_start thinking_delta thinking_delta thinking_delta thinking_delta thinking_delta thinking_end " +
				"text_start text_delta text_end done"},
		{"openrouter", "openrouter_gptoss_reasoning.sse",
			"thinking:Two plus two is four. | text:2 + 2 = 4.",
			"thinking_start thinking_delta thinking_delta thinking_end text_start text_delta text_delta text_end done"},
		{"lmstudio", "lmstudio_reasoning_call.sse",
			`thinking:The user wants the files listed. I should call ls on the root. | toolCall:ls {"path":"."}`,
			"thinking_start thinking_delta thinking_delta thinking_delta thinking_delta thinking_end " +
				"toolcall_start toolcall_delta toolcall_end done"},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			t.Parallel()
			m, n := replayed(t, tt.provider, tt.file)
			evs, msg, err := checked(t, m, hi)
			if err != nil {
				t.Fatal(err)
			}
			if got := describeParts(msg); got != tt.parts {
				t.Errorf("parts = %s\nwant    %s", got, tt.parts)
			}
			if got := types(evs); got != tt.events {
				t.Errorf("events = %s\nwant     %s", got, tt.events)
			}
			if w := n.all(); len(w) > 0 {
				t.Errorf("notices on a consistent stream: %q", w)
			}
		})
	}
}

func describeParts(msg llm.Message) string {
	var s []string
	for _, p := range msg.Content {
		switch p.Type {
		case llm.PartThinking:
			s = append(s, "thinking:"+p.Thinking)
		case llm.PartToolCall:
			s = append(s, "toolCall:"+p.Name+" "+string(p.Arguments))
		default:
			s = append(s, string(p.Type)+":"+p.Text)
		}
	}
	return strings.Join(s, " | ")
}

// LM Studio sends a call's arguments only in the finished item: stream
// readers get them as a delta before the call ends, not only in the
// final message.
func TestResponses_RecordedArgumentsFromFinishedItem(t *testing.T) {
	m, _ := replayed(t, "lmstudio", "lmstudio_reasoning_call.sse")
	var acc llm.Accumulator
	for ev, err := range m.Stream(context.Background(), hi) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == llm.EventToolCallEnd {
			// What a reader that shows arguments as they stream has seen.
			if got := string(acc.Message().Content[ev.Index].Arguments); got != `{"path":"."}` {
				t.Errorf("arguments streamed before the call ended = %q", got)
			}
		}
		acc.Apply(ev)
	}
}

// When the finished items contradict the deltas, the items win — text
// the deltas fell short of arrives as a delta, arguments that named
// another file are replaced — and each difference is reported.
func TestResponses_RecordedDeltasDiffer(t *testing.T) {
	m, n := replayed(t, "local", "deltas_differ.sse")
	_, msg, err := checked(t, m, hi)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := describeParts(msg), `text:Reading b.go now. | toolCall:read {"path":"b.go"}`; got != want {
		t.Errorf("parts = %s\nwant    %s", got, want)
	}
	w := n.all()
	if len(w) != 2 || !strings.Contains(w[0], "local: the finished text part 0 (17 bytes) differs from its streamed deltas (12 bytes) from byte 12") ||
		!strings.Contains(w[1], "toolCall part 1") {
		t.Errorf("notices = %q", w)
	}
}

// An exhausted quota inside a 200 stream — an error event or
// response.failed — is classified as Chat Completions classifies the
// HTTP 429: an auth error waiting does not fix, marked as a quota.
func TestResponses_RecordedQuota(t *testing.T) {
	for _, file := range []string{"openai_quota_error_event.sse", "openai_quota_failed.sse"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			m, _ := replayed(t, "openai", file)
			_, _, err := checked(t, llm.WithRetry(m, llm.RetryPolicy{MaxRetries: 2, Sleep: noSleep}), hi)
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != llm.KindAuth || !errors.Is(err, llm.ErrQuota) || e.Retryable() {
				t.Fatalf("err = %v (kind %s), want a quota auth error", err, llm.KindOf(err))
			}
			if !strings.Contains(e.Message, "check your plan and billing details") {
				t.Errorf("message = %q", e.Message)
			}
		})
	}
}

func noSleep(context.Context, time.Duration) error { return nil }

// A message item that carries its reasoning as a reasoning_text content
// part before its text: the reasoning is a thinking part, the text is
// settled against the item's output_text part only.
func TestResponses_ReasoningInsideMessage(t *testing.T) {
	ev := func(typ, fields string) string {
		return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + fields + "}\n\n"
	}
	final := `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"reasoning_text","text":"think"},{"type":"output_text","text":"Done."}]}`
	rec := ev("response.output_item.added", `"output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}`) +
		ev("response.content_part.added", `"output_index":0,"content_index":0,"part":{"type":"reasoning_text","text":""}`) +
		ev("response.reasoning_text.delta", `"output_index":0,"content_index":0,"delta":"think"`) +
		ev("response.content_part.added", `"output_index":0,"content_index":1,"part":{"type":"output_text","text":""}`) +
		ev("response.output_text.delta", `"output_index":0,"content_index":1,"delta":"Done."`) +
		ev("response.output_item.done", `"output_index":0,"item":`+final) +
		ev("response.completed", `"response":{"status":"completed"}`)
	srv := llmtest.NewServer(t, llmtest.ServerTurn{Recorded: []byte(rec)})
	n := &notices{}
	m := openai.NewResponses(openai.Config{Model: "m", APIKey: "k", BaseURL: srv.URL + "/v1", Info: gpt5, Warn: n.add})
	_, msg, err := checked(t, m, hi)
	if err != nil {
		t.Fatal(err)
	}
	if got := describeParts(msg); got != "thinking:think | text:Done." || len(n.all()) > 0 {
		t.Errorf("parts = %s, notices %q", got, n.all())
	}
}
