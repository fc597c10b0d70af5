package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// status is the status line: model, thinking level, context used, the
// session's tokens and cost, where commands run and the permission mode.
func (m *Model) status() string {
	a := m.rt.Agent
	info := a.Model()
	u := a.Usage()
	_, name, _ := strings.Cut(info.ID, "/")
	left := " " + termsafe.Line(name) + " · think " + string(thinkingName(a.Thinking()))
	if info.ContextWindow > 0 {
		left += " · ctx " + contextPercent(a.Messages(), info.ContextWindow)
	}
	left += " · " + tokens(u.Input+u.CacheRead+u.CacheWrite+u.Output) + " tok"
	if u.Cost > 0 {
		left += " · " + board.USD(u.Cost)
	}
	right := m.opts.Sandbox
	if m.rt.Approvals != nil {
		right += " · " + string(m.rt.Approvals.Mode())
	}
	switch {
	case m.ask != nil:
		right = "? approval · " + right
	case m.running:
		right = spinFrames[m.spin%len(spinFrames)] + " working · " + right
	}
	right += " "
	pad := m.w - ansi.StringWidth(left) - ansi.StringWidth(right)
	line := left
	if pad > 0 {
		line += fmt.Sprintf("%*s", pad, "") + right
	}
	return styleStatus.Render(clipWidth(line, m.w))
}

// spinFrames are the spinner's frames.
var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// tickMsg turns the spinner; it carries the frame it was scheduled at,
// so that one chain of ticks runs at a time.
type tickMsg int

// tick schedules the spinner's next frame.
func (m *Model) tick() tea.Cmd {
	n := m.spin
	return tea.Tick(120*time.Millisecond, func(time.Time) tea.Msg { return tickMsg(n) })
}

// thinkingName is the level as the status line shows it.
func thinkingName(t llm.ThinkingLevel) llm.ThinkingLevel {
	if t == "" {
		return "off"
	}
	return t
}

// contextPercent is how much of the window the conversation fills, from
// the last response's usage.
func contextPercent(msgs []llm.Message, window int) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if u := msgs[i].Usage; u != nil && msgs[i].Role == llm.RoleAssistant {
			return fmt.Sprintf("%.1f%%", float64(u.ContextTokens())*100/float64(window))
		}
	}
	return "0%"
}

// tokens shows a count briefly: 950, 12.3k, 1.2M.
func tokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}
