package runui

import (
	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// SetPrompt makes p ask the commands the policy holds for a person (nil:
// refuse them). A front end of another package (the full-screen
// interface) asks through it.
func (a *Approvals) SetPrompt(p gate.Asker) { a.setPrompt(p) }

// Remember allows a whole command line for the rest of the session: the
// "always" answer.
func (a *Approvals) Remember(command string) { a.remember(command) }

// Refused is the answer the model reads when the person refuses command.
func Refused(command string, d policy.Decision) gate.Answer {
	return refused(&question{command: command, d: d})
}

// Aborted is the answer the model reads when the turn was aborted while
// command waited for the person.
func Aborted(command string) gate.Answer { return aborted(command) }

// Mode is the policy mode in force: Policy.Mode until SetMode changes it.
// The run's gate reads it at every call (gate.Config.Mode).
func (a *Approvals) Mode() policy.Mode {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.mode != "" {
		return a.mode
	}
	return a.Policy.Mode
}

// SetMode changes the policy mode for the calls to come (the full-screen
// interface's /mode).
func (a *Approvals) SetMode(m policy.Mode) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mode = m
}
