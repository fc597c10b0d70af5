package tui

import (
	tea "charm.land/bubbletea/v2"
)

// key handles a key press: the interface's own keys first, then the
// editor's.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s != "ctrl+c" {
		m.armed = false
	}
	m.hint = ""
	if m.ask != nil && m.answerKey(s) {
		return nil
	}
	switch s {
	case "ctrl+c":
		return m.interrupt()
	case "ctrl+d":
		if m.ed.ta.Value() == "" {
			m.quit = true
			return tea.Quit
		}
	case "esc":
		if m.abort() {
			m.tr.notice("aborting…")
		}
		return nil
	case "enter":
		return m.submit()
	case "up":
		if m.ed.browse(-1) {
			return nil
		}
	case "down":
		if m.ed.browse(1) {
			return nil
		}
	case "pgup":
		m.tr.scroll += max(m.h/2, 1)
		return nil
	case "pgdown":
		m.tr.scroll = max(m.tr.scroll-max(m.h/2, 1), 0)
		return nil
	case "tab":
		if matches := m.completeAt(); len(matches) > 0 {
			m.hint = hintFiles(matches)
		}
		return nil
	case "ctrl+o":
		m.tr.flags.expand = !m.tr.flags.expand
		return nil
	case "ctrl+t":
		m.tr.flags.thinking = !m.tr.flags.thinking
		return nil
	}
	return m.ed.update(k)
}

// interrupt handles Ctrl-C: the first aborts the turn (or clears the
// editor), the second in a row quits.
func (m *Model) interrupt() tea.Cmd {
	if m.armed {
		m.quit = true
		return tea.Quit
	}
	m.armed = true
	if m.ask != nil {
		m.answer(false, false)
	}
	switch {
	case m.abort():
		m.tr.notice("aborting — press Ctrl-C again to quit")
	case m.ed.ta.Value() != "":
		m.ed.take()
		m.tr.notice("press Ctrl-C again to quit")
	default:
		m.tr.notice("press Ctrl-C again to quit")
	}
	return nil
}
