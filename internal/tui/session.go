package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/bonsai-run/bonsai/internal/session"
)

func (m *Model) cmdClear(string) tea.Cmd {
	sess, err := m.rt.Sessions.New()
	if err == nil {
		err = m.swap(sess)
	}
	if err != nil {
		m.tr.add(kindError, err.Error())
		return nil
	}
	m.tr.clear()
	m.tr.notice(banner(m.rt))
	return nil
}

func (m *Model) cmdFork(string) tea.Cmd {
	old := m.rt.Agent.Session()
	sess, err := old.Fork(old.Leaf(), m.rt.Sessions.ForkPath())
	if err == nil {
		err = m.swap(sess)
	}
	if err != nil {
		m.tr.add(kindError, err.Error())
		return nil
	}
	where := sess.Path()
	if where == "" {
		where = "a new session kept in memory"
	}
	m.tr.notice("forked: the conversation goes on in " + where)
	return nil
}

func (m *Model) cmdCompact(string) tea.Cmd {
	m.tr.notice("compacting…")
	return m.background(func(ctx context.Context) doneMsg { return doneMsg{err: m.rt.Agent.Compact(ctx)} })
}

// swap makes sess the agent's session, recording the model in it, and
// closes the old one.
func (m *Model) swap(sess *session.File) error {
	a := m.rt.Agent
	old := a.Session()
	if err := a.SetSession(sess); err != nil {
		sess.Close()
		return err
	}
	old.Close()
	c := sess.Context()
	if c.Model != a.Model().ID || c.Thinking != a.Thinking() {
		if _, err := sess.AppendModelChange(a.Model().ID, a.Thinking()); err != nil {
			return err
		}
	}
	return nil
}
