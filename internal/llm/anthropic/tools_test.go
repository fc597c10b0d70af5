package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

var readTool = llm.ToolSpec{Name: "read", Description: "Read a file.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}

func TestModel_StreamToolCallsInterleavedWithText(t *testing.T) {
	m, _ := newModel(t, llmtest.ServerTurn{Chunk: 4, Message: llm.Message{Content: []llm.Part{
		llm.Text("Let me look."),
		llm.ToolCall("toolu_1", "read", []byte(`{"path":"a.go"}`)),
		llm.Text("And this one."),
		llm.ToolCall("toolu_2", "read", []byte(`{"path":"b.go"}`)),
		llm.ToolCall("toolu_3", "ls", nil),
	}}})
	evs, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("go")}, Tools: []llm.ToolSpec{readTool}})
	if err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != llm.StopToolUse {
		t.Errorf("stop = %s", msg.StopReason)
	}
	calls := msg.ToolCalls()
	if len(calls) != 3 {
		t.Fatalf("calls = %+v", calls)
	}
	want := []struct{ id, name, args string }{
		{"toolu_1", "read", `{"path":"a.go"}`}, {"toolu_2", "read", `{"path":"b.go"}`}, {"toolu_3", "ls", `{}`}}
	for i, w := range want {
		if calls[i].ID != w.id || calls[i].Name != w.name || string(calls[i].Arguments) != w.args {
			t.Errorf("call %d = %s %s %s", i, calls[i].ID, calls[i].Name, calls[i].Arguments)
		}
	}
	if msg.Content[0].Text != "Let me look." || msg.Content[2].Text != "And this one." {
		t.Errorf("texts = %q %q", msg.Content[0].Text, msg.Content[2].Text)
	}
	// Deltas of the first call rebuild its arguments, and its end event has them parsed.
	var args string
	for _, ev := range evs {
		if ev.Index == 1 && ev.Type == llm.EventToolCallDelta {
			args += ev.Delta
		}
		if ev.Index == 1 && ev.Type == llm.EventToolCallEnd && string(ev.Part.Arguments) != `{"path":"a.go"}` {
			t.Errorf("end part = %+v", ev.Part)
		}
	}
	if args != `{"path":"a.go"}` {
		t.Errorf("deltas = %q", args)
	}
}

func TestModel_StreamThinking(t *testing.T) {
	m, _ := newModel(t, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{
		{Type: llm.PartThinking, Thinking: "The user wants a greeting. Keep it short.", Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"},
		{Type: llm.PartThinking, Signature: "EmwKAhgBEgy3va3pzix/LafPsn4a", Redacted: true},
		llm.Text("Hi!"),
	}}})
	evs, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Thinking: llm.ThinkingMedium})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := types(evs), "thinking_start thinking_delta thinking_delta thinking_delta thinking_end thinking_start thinking_end text_start text_delta text_end done"; got != want {
		t.Errorf("events = %s\nwant     %s", got, want)
	}
	th := msg.Content[0]
	if th.Thinking != "The user wants a greeting. Keep it short." || th.Signature != "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" || th.Redacted {
		t.Errorf("thinking = %+v", th)
	}
	if r := msg.Content[1]; !r.Redacted || r.Signature != "EmwKAhgBEgy3va3pzix/LafPsn4a" {
		t.Errorf("redacted = %+v", r)
	}
}
