package tui

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/runui"
)

// askMsg is a command the policy holds, waiting for the person.
type askMsg struct {
	command string
	d       policy.Decision
	reply   chan gate.Answer // buffered: the interface never waits on it
}

// asker returns the gate.Asker that puts held commands to the person:
// it runs on the agent's goroutine and waits for the answer or for the
// turn to be aborted.
func asker(send func(any)) gate.Asker {
	return func(ctx context.Context, command string, d policy.Decision) gate.Answer {
		q := &askMsg{command: command, d: d, reply: make(chan gate.Answer, 1)}
		send(q)
		select {
		case a := <-q.reply:
			return a
		case <-ctx.Done():
			return runui.Aborted(command)
		}
	}
}

// answerKey answers the pending question: y once, a always, n or Esc
// no. Other keys are ignored while a question waits.
func (m *Model) answerKey(s string) bool {
	switch s {
	case "y", "Y":
		m.answer(true, false)
	case "a", "A":
		m.answer(true, true)
	case "n", "N", "esc":
		m.answer(false, false)
	case "ctrl+c":
		return false
	}
	return true
}

// answer replies to the pending question.
func (m *Model) answer(allow, always bool) {
	q := m.ask
	m.ask = nil
	switch {
	case always:
		if m.rt.Approvals != nil {
			m.rt.Approvals.Remember(q.command)
		}
		m.tr.notice("allowed for this session: " + q.command)
		q.reply <- gate.Answer{Allow: true}
	case allow:
		m.tr.notice("allowed once: " + q.command)
		q.reply <- gate.Answer{Allow: true}
	default:
		m.tr.notice("refused: " + q.command)
		q.reply <- runui.Refused(q.command, q.d)
	}
}
