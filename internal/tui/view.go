package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// View implements tea.Model: the transcript, a rule, the question of a
// held command if any, the editor and the status line.
func (m *Model) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
	v.WindowTitle = "bonsai"
	return v
}

// screen renders the whole screen as text.
func (m *Model) screen() string {
	if m.quit {
		return ""
	}
	bottom := []string{styleDim.Render(strings.Repeat("─", max(m.w, 1)))}
	bottom = append(bottom, m.question()...)
	if m.hint != "" {
		bottom = append(bottom, styleDim.Render(clipWidth(termsafe.Line(m.hint), m.w)))
	}
	bottom = append(bottom, strings.Split(m.ed.ta.View(), "\n")...)
	bottom = append(bottom, m.status())
	top := m.tr.view(m.w, max(m.h-len(bottom), 1))
	return strings.Join(append(top, bottom...), "\n")
}

// question shows a held command and how to answer.
func (m *Model) question() []string {
	q := m.ask
	if q == nil {
		return nil
	}
	out := []string{clipWidth(styleAsk.Render("? The policy holds this command for your approval")+
		styleDim.Render(" ("+termsafe.Line(q.d.Rule)+": "+termsafe.Line(q.d.Reason)+")"), m.w)}
	lines := strings.Split(q.command, "\n")
	for i, l := range lines {
		if i == 4 {
			out = append(out, styleDim.Render("  … more lines"))
			break
		}
		out = append(out, clipWidth("  $ "+termsafe.Line(l), m.w))
	}
	return append(out, styleAsk.Render("  Run it? [y] once · [a] always this session · [n] no"))
}
