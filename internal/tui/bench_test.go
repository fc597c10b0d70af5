package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// BenchmarkFirstPaint measures the interface's first frame: the model
// built on a fresh agent, sized and drawn.
func BenchmarkFirstPaint(b *testing.B) {
	h := newHarness(b)
	for b.Loop() {
		m := New(b.Context(), h.m.rt, h.m.opts)
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		_ = m.View()
	}
}

// session2000 returns a harness whose transcript holds 2,000 entries:
// prompts, Markdown answers and tool calls.
func session2000(tb testing.TB) *harness {
	h := newHarness(tb)
	for i := range 500 {
		h.m.tr.add(kindUser, fmt.Sprintf("prompt %d: please look at the tests", i))
		h.m.tr.add(kindText, fmt.Sprintf("Answer %d with **bold** and `code`.\n\n- a point\n- another", i))
		h.update(agentMsg(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: fmt.Sprint(i), ToolName: "bash", Args: []byte(`{"command":"go test ./..."}`)}))
		res := tool.Text(strings.Repeat("ok  \tpackage\t0.1s\n", 20))
		h.update(agentMsg(agent.Event{Type: agent.EventToolExecutionEnd, ToolCallID: fmt.Sprint(i), ToolName: "bash", ToolResult: &res}))
		h.m.tr.notice("a notice")
	}
	if n := len(h.m.tr.entries); n < 2000 {
		tb.Fatalf("%d entries", n)
	}
	_ = h.m.View()
	return h
}

// BenchmarkKeystroke2000 measures one key typed in the editor and the
// frame drawn after it, with 2,000 entries in the transcript.
func BenchmarkKeystroke2000(b *testing.B) {
	h := session2000(b)
	n := 0
	for b.Loop() {
		if n++; n%80 == 0 {
			h.m.ed.ta.Reset() // a prompt of up to 80 characters, not one ever longer
		}
		h.update(tea.KeyPressMsg{Code: 'a', Text: "a"})
		_ = h.m.View()
	}
}

// BenchmarkToolOutput10MB measures a 10 MB tool output arriving (an
// update event) and the frame drawn after it.
func BenchmarkToolOutput10MB(b *testing.B) {
	h := newHarness(b)
	h.update(agentMsg(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: "big", ToolName: "bash", Args: []byte(`{"command":"cat big"}`)}))
	res := tool.Text(strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ\n", 10<<20/64))
	h.m.tr.flags.expand = true
	for b.Loop() {
		h.update(agentMsg(agent.Event{Type: agent.EventToolExecutionUpdate, ToolCallID: "big", ToolName: "bash", ToolResult: &res}))
		_ = h.m.View()
	}
}
