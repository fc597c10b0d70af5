package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/tool"
)

func TestModel_EnterSendsAltEnterBreaksTheLine(t *testing.T) {
	t.Parallel()
	h := newHarness(t, textTurn("Hi there."))
	h.typeText("first")
	h.press(tea.KeyEnter, tea.ModAlt)
	h.typeText("second")
	if v := h.m.ed.ta.Value(); v != "first\nsecond" {
		t.Fatalf("editor holds %q, want two lines", v)
	}
	h.press(tea.KeyEnter, 0)
	h.pumpUntil("Hi there.")
	h.idle()
	reqs := h.model.Requests()
	if len(reqs) != 1 || reqs[0].Messages[0].Text() != "first\nsecond" {
		t.Fatalf("the model was sent %+v", reqs)
	}
	if h.m.ed.ta.Value() != "" {
		t.Errorf("the editor was not emptied: %q", h.m.ed.ta.Value())
	}
}

func TestModel_HistoryUpDown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, textTurn("one"), textTurn("two"))
	for _, p := range []string{"alpha", "beta"} {
		h.typeText(p)
		h.press(tea.KeyEnter, 0)
		h.idle()
	}
	h.typeText("draft")
	h.press(tea.KeyUp, 0)
	if v := h.m.ed.ta.Value(); v != "beta" {
		t.Fatalf("up shows %q, want beta", v)
	}
	h.press(tea.KeyUp, 0)
	if v := h.m.ed.ta.Value(); v != "alpha" {
		t.Fatalf("up twice shows %q, want alpha", v)
	}
	h.press(tea.KeyDown, 0)
	h.press(tea.KeyDown, 0)
	if v := h.m.ed.ta.Value(); v != "draft" {
		t.Fatalf("down back to the draft shows %q", v)
	}
}

func TestModel_LargePasteIsOnePlaceholderLine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	big := strings.Repeat("pasted line\n", 2000)
	h.update(tea.PasteMsg{Content: big})
	shown := h.m.ed.ta.Value()
	if strings.Contains(shown, "\n") || !strings.Contains(shown, "[pasted #1: 2001 lines") {
		t.Fatalf("the editor shows %q", shown)
	}
	if got := h.m.ed.value(); got != big {
		t.Fatalf("the text sent is %d bytes, want the %d pasted", len(got), len(big))
	}
}

func TestModel_ToolCallFoldsAndDiffExpands(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	args, _ := json.Marshal(map[string]string{"path": "main.go", "old_string": "a := 1", "new_string": "a := 2"})
	h.update(agentMsg(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: "c1", ToolName: "edit", Args: args}))
	res := tool.Text("Edited main.go\nline two")
	res.Details = map[string]any{"diff": "--- main.go\n+++ main.go\n@@ -1 +1 @@\n-a := 1\n+a := 2\n"}
	h.update(agentMsg(agent.Event{Type: agent.EventToolExecutionEnd, ToolCallID: "c1", ToolName: "edit", ToolResult: &res}))
	s := h.screen()
	if !strings.Contains(s, "● edit main.go") || !strings.Contains(s, "⎿ Edited main.go … (2 lines") || strings.Contains(s, "+a := 2") {
		t.Fatalf("folded call:\n%s", s)
	}
	h.press('o', tea.ModCtrl)
	s = h.screen()
	if !strings.Contains(s, "-a := 1") || !strings.Contains(s, "+a := 2") || !strings.Contains(s, "line two") {
		t.Fatalf("expanded call:\n%s", s)
	}
	if styled := h.m.View().Content; !strings.Contains(styled, styleAdd.Render("+a := 2")) {
		t.Errorf("the added line is not green: %q", styled)
	}
}

func TestModel_ThinkingDimmedAndCollapsible(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.update(agentMsg(agent.Event{Type: agent.EventMessageUpdate, Delta: &llm.Event{Type: llm.EventThinkingDelta, Delta: "step one\nstep two"}}))
	s := h.screen()
	if !strings.Contains(s, "✻ thinking: step one step two") {
		t.Fatalf("collapsed thinking:\n%s", s)
	}
	h.press('t', tea.ModCtrl)
	if s = h.screen(); !strings.Contains(s, "step one\nstep two") {
		t.Fatalf("expanded thinking:\n%s", s)
	}
}

func TestModel_ModelOutputIsSanitised(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.update(agentMsg(agent.Event{Type: agent.EventMessageUpdate, Delta: &llm.Event{Type: llm.EventTextDelta,
		Delta: "evil \x1b]52;c;cHduZWQ=\x07 title \x1b[2J and \u202e bidi"}}))
	out := h.m.View().Content
	for _, bad := range []string{"\x1b]52", "\x1b[2J", "\u202e", "\x07"} {
		if strings.Contains(out, bad) {
			t.Errorf("the screen carries %q from the model", bad)
		}
	}
	if !strings.Contains(ansi.Strip(out), `\x1b]52`) {
		t.Errorf("the escape is not shown as text:\n%s", ansi.Strip(out))
	}
}

func TestModel_EscAbortsAndCtrlCTwiceQuits(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	h := newHarness(t, llmtest.Turn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("never")}}, Wait: hold})
	h.typeText("wait")
	h.press(tea.KeyEnter, 0)
	if !h.m.running {
		t.Fatal("no turn runs")
	}
	h.press(tea.KeyEscape, 0)
	h.pumpUntil("aborted")
	h.idle()
	if cmd := h.press('c', tea.ModCtrl); cmd != nil {
		t.Fatal("the first Ctrl-C quit")
	}
	cmd := h.press('c', tea.ModCtrl)
	if cmd == nil {
		t.Fatal("the second Ctrl-C did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("the second Ctrl-C did not quit")
	}
}

func TestModel_SteeringWhileATurnRuns(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	h := newHarness(t,
		llmtest.Turn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.ToolCall("c1", "missing", []byte(`{}`))}}, Wait: hold},
		textTurn("steered"))
	h.typeText("start")
	h.press(tea.KeyEnter, 0)
	// Steer once the first request is out: a message queued before the
	// run begins goes with the prompt instead.
	for len(h.model.Requests()) == 0 {
		time.Sleep(time.Millisecond)
	}
	h.typeText("go left")
	h.press(tea.KeyEnter, 0)
	close(hold)
	h.pumpUntil("steered")
	h.idle()
	reqs := h.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != llm.RoleUser || last.Text() != "go left" {
		for _, m := range reqs[1].Messages {
			t.Logf("%s %q", m.Role, m.Text())
		}
		t.Fatalf("the second request ends with %+v, not the steering message", last)
	}
}

func TestModel_HeldCommandIsAskedInline(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ask := asker(func(msg any) { h.msgs <- msg })
	got := make(chan bool, 1)
	go func() {
		got <- ask(t.Context(), "rm -r build", policy.Decision{Rule: "ask", Reason: "changes files"}).Allow
	}()
	h.pumpUntil("Run it? [y] once · [a] always this session · [n] no")
	h.typeText("a")
	if !<-got {
		t.Fatal("always did not allow")
	}
	if a := h.m.rt.Approvals.Ask(t.Context(), "rm -r build", policy.Decision{}); !a.Allow {
		t.Fatal("always was not remembered")
	}
	go func() { got <- ask(t.Context(), "rm x", policy.Decision{Rule: "ask", Reason: "changes files"}).Allow }()
	h.pumpUntil("$ rm x")
	h.typeText("n")
	if <-got {
		t.Fatal("n allowed the command")
	}
}

func TestModel_SlashCommands(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, c := range []struct{ line, want string }{
		{"/help", "/export [file|html]"},
		{"/cost", "session: 0 tokens in"},
		{"/thinking high", "thinking high"},
		{"/model other/model", "model: other/model"},
		{"/mode", "permission mode: ask"},
		{"/mode read-only", "permission mode: read-only, from the next command on"},
		{"/mode plan", "/mode plan: give auto, ask or read-only"},
		{"/nope", "unknown command /nope"},
	} {
		h.typeText(c.line)
		h.press(tea.KeyEnter, 0)
		if s := h.screen(); !strings.Contains(s, c.want) {
			t.Errorf("%s: the screen lacks %q:\n%s", c.line, c.want, s)
		}
	}
	if h.m.rt.Approvals.Mode() != policy.ModeReadOnly {
		t.Errorf("the mode is %q", h.m.rt.Approvals.Mode())
	}
	if h.m.rt.Agent.Thinking() != llm.ThinkingHigh {
		t.Errorf("thinking is %q", h.m.rt.Agent.Thinking())
	}
}

func TestModel_WarningsShowInTheTranscript(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.update(warningMsg("the MCP server github exited\x1b[2J"))
	if s := h.m.View().Content; !strings.Contains(ansi.Strip(s), `warning: the MCP server github exited\x1b[2J`) || strings.Contains(s, "\x1b[2J") {
		t.Fatalf("the warning shows as:\n%q", s)
	}
}
