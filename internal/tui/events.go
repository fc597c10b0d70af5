package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// agentMsg carries one agent event to the interface's loop.
type agentMsg agent.Event

// apply shows one agent event in the transcript.
func (t *transcript) apply(e agent.Event) {
	switch e.Type {
	case agent.EventMessageUpdate:
		switch e.Delta.Type {
		case llm.EventTextDelta:
			t.streamDelta(kindText, e.Delta.Delta)
		case llm.EventThinkingDelta:
			t.streamDelta(kindThinking, e.Delta.Delta)
		}
	case agent.EventMessageEnd:
		t.stream = nil
		if e.Message != nil && e.Message.Role == llm.RoleAssistant && e.Message.StopReason == llm.StopError {
			t.add(kindError, "error: "+e.Message.ErrorMessage)
		}
	case agent.EventToolExecutionStart:
		t.stream = nil
		t.startCall(e)
	case agent.EventToolExecutionUpdate, agent.EventToolExecutionEnd:
		t.updateCall(e)
	case agent.EventRetry:
		t.notice(fmt.Sprintf("retry %d in %s: %s", e.Delta.Retry.Attempt, e.Delta.Retry.Delay, e.Delta.Retry.Err))
	case agent.EventCompactionStart:
		t.notice("compacting the conversation…")
	case agent.EventCompactionEnd:
		t.notice("compacted")
	}
}

func (t *transcript) startCall(e agent.Event) {
	c := &toolCall{id: e.ToolCallID, name: e.ToolName, summary: argsSummary(e.Args), diff: argsDiff(e.ToolName, e.Args)}
	en := t.add(kindTool, "")
	en.call = c
	if t.calls == nil {
		t.calls = map[string]*entry{}
	}
	t.calls[e.ToolCallID] = en
}

func (t *transcript) updateCall(e agent.Event) {
	en := t.calls[e.ToolCallID]
	if en == nil || e.ToolResult == nil {
		return
	}
	c := en.call
	c.output, c.dropped = tail(resultText(e.ToolResult), maxOutput)
	if e.Type == agent.EventToolExecutionEnd {
		c.done, c.isError = true, e.ToolResult.IsError
		if d := detailsDiff(e.ToolResult.Details); d != "" {
			c.diff = d
		}
	}
	en.touch()
}

// resultText is the text of a tool result.
func resultText(r *tool.Result) string {
	if len(r.Content) == 1 && r.Content[0].Type == llm.PartText {
		return r.Content[0].Text // no copy of a large output
	}
	var b strings.Builder
	for _, p := range r.Content {
		if p.Type == llm.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// tail returns at most n bytes at the end of s, from a line's start when
// it can, and how many bytes it dropped.
func tail(s string, n int) (string, int) {
	if len(s) <= n {
		return s, 0
	}
	cut := len(s) - n
	if i := strings.IndexByte(s[cut:], '\n'); i >= 0 {
		cut += i + 1
	}
	return s[cut:], cut
}

// argsSummary shows a tool call's arguments on one line.
func argsSummary(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) == nil {
		for _, k := range []string{"command", "path", "pattern", "url"} {
			if s, ok := m[k].(string); ok {
				return oneLine(clipBytes(s, 400))
			}
		}
	}
	return oneLine(clipBytes(string(args), 400))
}

// argsDiff is what an edit or a write changes, as diff lines, before its
// result brings the real diff.
func argsDiff(name string, args json.RawMessage) string {
	var a struct {
		Old     string `json:"old_string"`
		New     string `json:"new_string"`
		Content string `json:"content"`
	}
	if json.Unmarshal(args, &a) != nil {
		return ""
	}
	switch name {
	case "edit":
		return prefixLines("-", a.Old) + prefixLines("+", a.New)
	case "write":
		return prefixLines("+", a.Content)
	}
	return ""
}

// detailsDiff is the unified diff an edit result's details carry.
func detailsDiff(details any) string {
	if details == nil {
		return ""
	}
	b, err := json.Marshal(details)
	if err != nil {
		return ""
	}
	var d struct {
		Diff string `json:"diff"`
	}
	_ = json.Unmarshal(b, &d)
	return d.Diff
}

// prefixLines puts p before each line of s, keeping at most 200 lines.
func prefixLines(p, s string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	more := ""
	if len(lines) > 200 {
		more = fmt.Sprintf("… %d more lines\n", len(lines)-200)
		lines = lines[:200]
	}
	return p + strings.Join(lines, "\n"+p) + "\n" + more
}

// clipBytes cuts s to about n bytes.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// showResult tells how a run ended when it did not simply stop.
func (t *transcript) showResult(r agent.Result) {
	switch r.Reason {
	case agent.EndStop:
	case agent.EndAborted:
		t.notice("aborted")
	default:
		t.add(kindError, fmt.Sprintf("run ended: %s: %s", r.Reason, termsafe.Line(r.Detail)))
	}
}
