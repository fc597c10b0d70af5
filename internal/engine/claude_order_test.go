package engine_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// TestClaudeResultBeforeMessageStop: Claude Code runs a tool call as soon
// as its block ends and, on a busy machine, may print the call's result
// before the message's message_stop. The transcript still gets the
// message holding the call first: a result never precedes its call (a
// resumed session would be refused by the provider).
func TestClaudeResultBeforeMessageStop(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/claude-stream.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
	// Move each user line (tool results) before the last message_stop
	// printed ahead of it.
	moved := 0
	for i, l := range lines {
		if !bytes.Contains(l, []byte(`"type":"user"`)) {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if bytes.Contains(lines[j], []byte(`"message_stop"`)) {
				copy(lines[j+1:i+1], lines[j:i])
				lines[j] = l
				moved++
				break
			}
		}
	}
	if moved == 0 {
		t.Fatal("the recording has no tool result to move")
	}
	p := engine.Claude{}.NewParser()
	calls := map[string]bool{}
	results := 0
	var evs []engine.Event
	for _, l := range lines {
		got, err := p.Line(l)
		if err != nil {
			continue
		}
		evs = append(evs, got...)
	}
	evs = append(evs, p.Flush()...)
	for _, ev := range evs {
		m := ev.Message
		if m == nil {
			continue
		}
		for _, c := range m.ToolCalls() {
			calls[c.ID] = true
		}
		if m.Role == llm.RoleToolResult {
			results++
			if !calls[m.ToolCallID] {
				t.Errorf("the result of %s (%s) came before the message holding its call", m.ToolName, m.ToolCallID)
			}
		}
	}
	if results != moved {
		t.Errorf("%d tool results; want the %d moved", results, moved)
	}
}
