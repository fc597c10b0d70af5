package llm

import (
	"encoding/json"
	"testing"
)

func TestAccumulator(t *testing.T) {
	var a Accumulator
	evs := []Event{
		{Type: EventThinkingStart, Index: 0},
		{Type: EventThinkingDelta, Index: 0, Delta: "hmm "},
		{Type: EventThinkingDelta, Index: 0, Delta: "ok"},
		{Type: EventThinkingEnd, Index: 0, Part: &Part{Type: PartThinking, Thinking: "hmm ok", Signature: "s"}},
		{Type: EventTextStart, Index: 1},
		{Type: EventTextDelta, Index: 1, Delta: "Hi"},
		{Type: EventToolCallStart, Index: 2, Part: &Part{ID: "c1", Name: "read"}},
		{Type: EventToolCallDelta, Index: 2, Delta: `{"path":`},
	}
	for _, ev := range evs {
		a.Apply(ev)
	}
	m := a.Message()
	if m.Role != RoleAssistant || len(m.Content) != 3 || m.Content[0].Signature != "s" || m.Content[1].Text != "Hi" {
		t.Fatalf("message = %+v", m)
	}
	// A tool call still streaming shows its arguments so far, as valid JSON.
	if c := m.Content[2]; c.ID != "c1" || c.Type != PartToolCall || string(c.Arguments) != `"{\"path\":"` {
		t.Errorf("partial call = %+v (%s)", c, c.Arguments)
	}
	a.Apply(Event{Type: EventToolCallDelta, Index: 2, Delta: `"a.go"}`})
	a.Apply(Event{Type: EventToolCallEnd, Index: 2, Part: &Part{Type: PartToolCall, ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}})
	if got := a.Message().Content[2].Arguments; string(got) != `{"path":"a.go"}` {
		t.Errorf("arguments = %s", got)
	}
	final := Message{Role: RoleAssistant, Content: []Part{Text("done")}, StopReason: StopEnd}
	a.Apply(Event{Type: EventDone, Message: &final})
	if m := a.Message(); m.Text() != "done" || m.StopReason != StopEnd {
		t.Errorf("final = %+v", m)
	}
}

func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{"", "{}", `{"a":1}`, `{"a":`, "null", `"x"`, " \n", "{\"s\":\"\\u00e9\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ToolArguments([]byte(s))
		if !json.Valid(got) {
			t.Fatalf("ToolArguments(%q) = %q is not valid JSON", s, got)
		}
		if again := ToolArguments(got); string(again) != string(got) {
			t.Fatalf("not idempotent: %q then %q", got, again)
		}
	})
}
