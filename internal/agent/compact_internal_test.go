package agent

import (
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

func TestCutPoint_NeverSplitsCallFromResult(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 400) // 100 tokens + 4
	user := llm.UserText(big)
	asstCalls := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.ToolCall("a", "read", []byte(`{}`)), llm.ToolCall("b", "read", []byte(`{}`))}}
	res := llm.ToolResultText("a", "read", big, false)
	res2 := llm.ToolResultText("b", "read", big, false)
	answer := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text(big)}}
	msgs := []llm.Message{user, asstCalls, res, res2, answer, user, asstCalls, res, res2}
	ids := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}
	tests := []struct {
		keep int
		want int
	}{
		{keep: 50, want: 6},   // the last result alone is enough, but it needs its call
		{keep: 210, want: 6},  // both results
		{keep: 220, want: 5},  // the user message before the call
		{keep: 320, want: 4},  // the answer
		{keep: 430, want: 1},  // into the first results: back to their call
		{keep: 540, want: 1},  // the same
		{keep: 5000, want: 0}, // everything fits: nothing to summarise
	}
	for _, tt := range tests {
		got := cutPoint(msgs, ids, tt.keep)
		if got != tt.want {
			t.Errorf("cutPoint(keep=%d) = %d, want %d", tt.keep, got, tt.want)
		}
		if got > 0 && msgs[got].Role == llm.RoleToolResult {
			t.Errorf("cutPoint(keep=%d) cuts at a tool result", tt.keep)
		}
	}
	// A cut that would keep everything but the previous summary is no cut.
	ids[0] = ""
	if got := cutPoint(msgs, ids, 540); got != 1 {
		t.Errorf("cut after summary = %d", got)
	}
}

func TestSendable_DropsFailedResponses(t *testing.T) {
	t.Parallel()
	msgs := []llm.Message{
		llm.UserText("go"),
		{Role: llm.RoleAssistant, StopReason: llm.StopAborted, Content: []llm.Part{llm.ToolCall("x", "bash", nil)}},
		llm.ToolResultText("x", "bash", "aborted", true),
		llm.UserText("again"),
		{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.Part{llm.ToolCall("y", "bash", nil), llm.ToolCall("z", "bash", nil)}},
		llm.ToolResultText("y", "bash", "ok", false),
		llm.ToolResultText("stray", "bash", "?", false),
	}
	got := sendable(msgs)
	var b []string
	for _, m := range got {
		b = append(b, string(m.Role)+":"+m.ToolCallID)
	}
	if s := strings.Join(b, " "); s != "user: user: assistant: toolResult:y toolResult:z" {
		t.Errorf("sendable = %s", s)
	}
	if !strings.Contains(got[4].Text(), "interrupted") {
		t.Errorf("synthetic result = %q", got[4].Text())
	}
}
