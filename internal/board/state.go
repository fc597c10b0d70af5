package board

import "strings"

// State is a column of the board.
type State string

// The states a ticket moves through, in board order.
const (
	Backlog      State = "BACKLOG"
	Research     State = "RESEARCH"
	InProgress   State = "IN_PROGRESS"
	Verification State = "VERIFICATION"
	Done         State = "DONE"
)

// States lists every state in board order.
var States = []State{Backlog, Research, InProgress, Verification, Done}

// ParseState parses a state name, accepting any letter case and "-" or " "
// for "_" (so "in-progress" works on the command line).
func ParseState(s string) (State, error) {
	norm := strings.ToUpper(strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(s)))
	for _, st := range States {
		if string(st) == norm {
			return st, nil
		}
	}
	return "", Errorf(EINVALID, "unknown state %q; use one of BACKLOG, RESEARCH, IN_PROGRESS, VERIFICATION, DONE", s)
}

// Valid reports whether s is one of the five states.
func (s State) Valid() bool {
	for _, st := range States {
		if s == st {
			return true
		}
	}
	return false
}

// SubState qualifies a state: the agent is waiting on a person (blocked), or a
// person sent the work back (returned).
type SubState string

// The sub-states. None is the empty string so that it is the zero value.
const (
	SubNone     SubState = ""
	SubBlocked  SubState = "blocked"
	SubReturned SubState = "returned"
)

// Valid reports whether s is a known sub-state.
func (s SubState) Valid() bool {
	return s == SubNone || s == SubBlocked || s == SubReturned
}

// Actor is who asks for a change: a person, the agent, or the runtime itself.
type Actor string

// The actors.
const (
	Human  Actor = "human"
	Agent  Actor = "agent"
	System Actor = "system"
)

// Valid reports whether a is a known actor.
func (a Actor) Valid() bool { return a == Human || a == Agent || a == System }
