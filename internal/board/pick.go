package board

import (
	"slices"
	"time"
)

// Candidate is a ticket together with what the pick policy needs to know
// about its thread.
type Candidate struct {
	Ticket Ticket
	// LastHumanComment is when the newest unresolved human comment on the
	// ticket was written; zero when there is none.
	LastHumanComment time.Time
	// Waiting reports that the ticket waits for another one: a blocker
	// or a sub-ticket of it that is not DONE (Links.Waiting).
	Waiting bool
}

// PickClass is the reason a ticket is picked. Lower classes win.
type PickClass int

// The pick classes of docs/design.md §3, in order of precedence.
const (
	ClassNone       PickClass = iota // not pickable
	ClassHumanReply                  // RESEARCH or IN_PROGRESS with an unresolved human comment
	ClassReturned                    // IN_PROGRESS, sent back by a person
	ClassInProgress                  // IN_PROGRESS, not blocked
	ClassResearch                    // RESEARCH
	ClassBacklog                     // BACKLOG, in a project whose agents take BACKLOG tickets
)

// String describes the class for people, e.g. in `heartbeat --dry-run`.
func (c PickClass) String() string {
	switch c {
	case ClassHumanReply:
		return "unresolved human comment"
	case ClassReturned:
		return "returned with feedback"
	case ClassInProgress:
		return "in progress"
	case ClassResearch:
		return "waiting for research"
	case ClassBacklog:
		return "waiting in the backlog"
	}
	return "not pickable"
}

// Pick is the ticket the policy chose and why.
type Pick struct {
	Ticket Ticket    `json:"ticket"`
	Class  PickClass `json:"class"`
}

// Classify returns the pick class of c, or ClassNone when an agent should not
// work on it now (wrong state, blocked waiting on a person, or waiting for
// another ticket). A BACKLOG
// ticket is ClassBacklog when takeBacklog is set: its project lets agents
// take BACKLOG tickets by themselves (AgentSettings.TakeBacklog).
func Classify(c Candidate, takeBacklog bool) PickClass {
	t := c.Ticket
	if t.SubState == SubBlocked || c.Waiting {
		return ClassNone
	}
	switch {
	case (t.State == Research || t.State == InProgress) && !c.LastHumanComment.IsZero():
		return ClassHumanReply
	case t.State == InProgress && t.SubState == SubReturned:
		return ClassReturned
	case t.State == InProgress:
		return ClassInProgress
	case t.State == Research:
		return ClassResearch
	case t.State == Backlog && takeBacklog:
		return ClassBacklog
	}
	return ClassNone
}

// PickTicket applies the pick policy to one project's candidates and reports
// the ticket an agent should work on next; takeBacklog is the project's
// AgentSettings.TakeBacklog. Inside a class, higher priority (lower number)
// wins, then the class's own order: newest human comment first, newest
// returned first, least recently updated in-progress first, oldest research
// first, oldest backlog first. Ticket number breaks any remaining tie.
func PickTicket(cands []Candidate, takeBacklog bool) (Pick, bool) {
	var best *Candidate
	bestClass := ClassNone
	for i := range cands {
		c := &cands[i]
		cl := Classify(*c, takeBacklog)
		if cl == ClassNone {
			continue
		}
		if best == nil || cl < bestClass || cl == bestClass && less(cl, c, best) {
			best, bestClass = c, cl
		}
	}
	if best == nil {
		return Pick{}, false
	}
	return Pick{Ticket: best.Ticket, Class: bestClass}, true
}

// less reports whether a comes before b inside class cl.
func less(cl PickClass, a, b *Candidate) bool {
	if a.Ticket.Priority != b.Ticket.Priority {
		return a.Ticket.Priority < b.Ticket.Priority
	}
	var c int
	switch cl {
	case ClassHumanReply:
		c = b.LastHumanComment.Compare(a.LastHumanComment) // newest first
	case ClassReturned:
		c = b.Ticket.UpdatedAt.Compare(a.Ticket.UpdatedAt) // newest first
	case ClassInProgress:
		c = a.Ticket.UpdatedAt.Compare(b.Ticket.UpdatedAt) // least recently updated first
	case ClassResearch, ClassBacklog:
		c = a.Ticket.CreatedAt.Compare(b.Ticket.CreatedAt) // oldest first
	}
	if c != 0 {
		return c < 0
	}
	return a.Ticket.Number < b.Ticket.Number
}

// SortQueue orders picks across projects for display: by class, then
// priority, then project slug.
func SortQueue(picks []Pick) {
	slices.SortStableFunc(picks, func(a, b Pick) int {
		if a.Class != b.Class {
			return int(a.Class - b.Class)
		}
		if a.Ticket.Priority != b.Ticket.Priority {
			return a.Ticket.Priority - b.Ticket.Priority
		}
		switch {
		case a.Ticket.ProjectSlug < b.Ticket.ProjectSlug:
			return -1
		case a.Ticket.ProjectSlug > b.Ticket.ProjectSlug:
			return 1
		}
		return 0
	})
}
