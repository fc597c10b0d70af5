package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/agenthost"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/runui"
)

// harness is a Model on a real agent whose model plays scripted turns;
// the messages the agent's goroutine sends are queued for pump.
type harness struct {
	t     testing.TB
	m     *Model
	msgs  chan tea.Msg
	model *llmtest.Model
}

func newHarness(t testing.TB, turns ...llmtest.Turn) *harness {
	t.Helper()
	h := &harness{t: t, msgs: make(chan tea.Msg, 1024), model: llmtest.NewModel(turns...)}
	events := &runui.Events{}
	sessions := agenthost.Sessions{Dir: t.TempDir(), Cwd: "/work"}
	sess, err := sessions.New()
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Model: h.model, Info: llm.Info{ID: "llmtest/scripted", ContextWindow: 200000},
		OnEvent: events.Handle, Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	rt := &runui.Run{Agent: a, Events: events, Getenv: func(string) string { return "" }, Sessions: sessions,
		Approvals: &runui.Approvals{Policy: policy.Config{Mode: policy.ModeAsk}},
		Models: func(id string) (llm.Model, llm.Info, string, error) {
			return h.model, llm.Info{ID: id, ContextWindow: 1000}, "", nil
		}}
	events.Set(func(e agent.Event) { h.msgs <- agentMsg(e) })
	h.m = New(context.Background(), rt, Options{Root: t.TempDir(), Sandbox: "host"})
	h.m.send = func(m tea.Msg) { h.msgs <- m }
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return h
}

// update passes msg to the model, and the messages of the commands it
// returns that come at once (not ticks).
func (h *harness) update(msg tea.Msg) tea.Cmd {
	_, cmd := h.m.Update(msg)
	return cmd
}

// typeText sends each rune as a key press.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// press sends a special key.
func (h *harness) press(code rune, mod tea.KeyMod) tea.Cmd {
	return h.update(tea.KeyPressMsg{Code: code, Mod: mod})
}

// pumpUntil feeds the agent's messages to the model until the screen
// shows want.
func (h *harness) pumpUntil(want string) string {
	h.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		if s := h.screen(); strings.Contains(s, want) {
			return s
		}
		select {
		case msg := <-h.msgs:
			h.update(msg)
		case <-deadline:
			h.t.Fatalf("the screen never showed %q:\n%s", want, h.screen())
		}
	}
}

// idle feeds messages until the running turn has ended.
func (h *harness) idle() {
	h.t.Helper()
	deadline := time.After(60 * time.Second)
	for h.m.running {
		select {
		case msg := <-h.msgs:
			h.update(msg)
		case <-deadline:
			h.t.Fatalf("the turn never ended:\n%s", h.screen())
		}
	}
}

// screen is the view without styles.
func (h *harness) screen() string { return ansi.Strip(h.m.View().Content) }

func textTurn(s string) llmtest.Turn {
	return llmtest.Turn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text(s)}}}
}

// send types a line and Enter, and waits for the turn it starts, if
// any, to end.
func (h *harness) send(line string) {
	h.t.Helper()
	h.typeText(line)
	h.press(tea.KeyEnter, 0)
	h.idle()
}
