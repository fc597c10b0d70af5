package agent

import (
	"fmt"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// record appends a message to the session (fsynced) and to the context.
func (a *Agent) record(m llm.Message, details []byte) error {
	// Only the loop records, so the fsync can happen outside a.mu: Steer
	// and FollowUp never wait for the disk.
	a.mu.Lock()
	sess := a.session
	a.mu.Unlock()
	e, err := sess.AppendMessage(m, details)
	if err != nil {
		return fmt.Errorf("record %s message: %w", m.Role, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.messages = append(a.messages, m)
	a.entryIDs = append(a.entryIDs, e.ID)
	if m.Role == llm.RoleAssistant && m.Usage != nil {
		a.usage = a.usage.Add(*m.Usage)
		if usable(m) {
			a.lastCtx, a.lastAt = m.Usage.ContextTokens(), len(a.messages)
		}
	}
	return nil
}

// deliver emits and records a user message.
func (a *Agent) deliver(m llm.Message) error {
	a.emit(Event{Type: EventMessageStart, Message: &m})
	if err := a.record(m, nil); err != nil {
		return err
	}
	a.emit(Event{Type: EventMessageEnd, Message: &m})
	return nil
}
