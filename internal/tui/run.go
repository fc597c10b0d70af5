package tui

import (
	"context"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/runui"
)

// Usable reports whether the full-screen interface can run: stdin and
// stdout are terminals and TERM is not dumb. Otherwise `bonsai run` keeps
// the line prompt.
func Usable(rt *runui.Run) bool {
	return runui.Terminal(rt.Stdin) && runui.Terminal(rt.Stdout) && rt.Getenv("TERM") != "dumb"
}

// Run drives rt in the full-screen interface until the person quits;
// prompt, when not empty, is sent first. It returns when the running
// turn has ended and been recorded.
func Run(ctx context.Context, rt *runui.Run, opts Options, prompt string) error {
	m := New(ctx, rt, opts)
	// 120 frames a second, Bubble Tea's most: a frame is drawn at the
	// next tick, so this bounds the wait for the first paint and for a
	// keystroke's echo to 8 ms.
	p := tea.NewProgram(m, tea.WithInput(rt.Stdin), tea.WithOutput(rt.Stdout), tea.WithoutSignalHandler(), tea.WithFPS(120))
	m.send = p.Send
	rt.Events.Set(func(e agent.Event) { p.Send(agentMsg(e)) })
	defer rt.Events.Set(nil)
	if rt.Approvals != nil {
		rt.Approvals.SetPrompt(asker(func(msg any) { p.Send(msg) }))
		defer rt.Approvals.SetPrompt(nil)
	}
	if opts.Warnings != nil {
		opts.Warnings(func(s string) { p.Send(warningMsg(s)) })
		defer opts.Warnings(nil)
	}
	stop := context.AfterFunc(ctx, func() { p.Send(quitMsg{}) })
	defer stop()
	if prompt != "" {
		m.start(prompt) // Init starts the spinner
	}
	_, err := p.Run()
	m.abort()
	m.wait()
	summary(rt.Stdout, rt.Agent)
	if err != nil {
		return fmt.Errorf("terminal interface: %w", err)
	}
	return nil
}

// wait blocks until the agent is idle: the aborted turn has recorded
// its end.
func (m *Model) wait() {
	if m.done != nil {
		<-m.done
	}
}

// summary prints the session's tokens and cost once the screen is back.
func summary(w io.Writer, a *agent.Agent) {
	u := a.Usage()
	s := fmt.Sprintf("(%d input, %d output tokens", u.Input+u.CacheRead+u.CacheWrite, u.Output)
	if u.Cost > 0 {
		s += ", " + board.USD(u.Cost)
	}
	fmt.Fprintln(w, s+")")
}
