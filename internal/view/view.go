// Package view defines the JSON shapes Bonsai prints and serves: the CLI's
// --json output and the web UI's JSON API share these types, so a script can
// switch between `bonsai … --json` and the API. They are a contract
// (docs/cli.md, docs/api.md): add fields, never rename or remove them.
package view

import "github.com/bonsai-run/bonsai/internal/board"

// StateCounts counts a project's tickets per state; every state is present.
type StateCounts map[board.State]int

// NewStateCounts returns counts with every state, taking the numbers in from
// (which may be nil).
func NewStateCounts(from map[board.State]int) StateCounts {
	c := make(StateCounts, len(board.States))
	for _, s := range board.States {
		c[s] = from[s]
	}
	return c
}

// ProjectDetail is `bonsai project show --json`.
type ProjectDetail struct {
	board.Project
	Counts StateCounts `json:"counts"`
}

// Ticket is one element of `bonsai ticket list --json`: the ticket and its
// reference.
type Ticket struct {
	Ref string `json:"ref"`
	board.Ticket
}

// NewTicket returns the view of t; criteria are never null.
func NewTicket(t board.Ticket) Ticket {
	if t.Criteria == nil {
		t.Criteria = []string{}
	}
	return Ticket{Ref: t.Ref().String(), Ticket: t}
}

// TicketDetail is `bonsai ticket show --json`: the ticket with its thread and
// runs, never null.
type TicketDetail struct {
	Ticket
	Comments []board.Comment `json:"comments"`
	Runs     []Run           `json:"runs"`
	// Approvals are the commands the agent asked a person to allow, oldest
	// first, pending and decided.
	Approvals []board.Approval `json:"approvals"`
	// NotRun says why the heartbeat does not run the agent on the ticket
	// now (NotRun); empty when nothing stops it or no agent would.
	NotRun []string `json:"notRun,omitempty"`
	// Landing is how the ticket's work reaches the default branch: its
	// pull request, the commit it landed as, the last failure to land it;
	// nil before anything was tried (landing.go).
	Landing *board.Landing `json:"landing,omitempty"`
	// MergeHint says where the work is and how a person merges it, for a
	// ticket whose work does not land by itself; empty otherwise.
	MergeHint string `json:"mergeHint,omitempty"`
	// Attachments are the files on the ticket and its comments, oldest
	// first (docs/attachments.md).
	Attachments []board.Attachment `json:"attachments,omitempty"`
	// Links are its parent, sub-tickets and blockers (LoadLinks); nil
	// when it has none.
	Links *board.Links `json:"links,omitempty"`
}

// NewTicketDetail returns the view of a ticket with its comments and runs.
func NewTicketDetail(t board.Ticket, comments []board.Comment, runs []board.Run) TicketDetail {
	d := TicketDetail{Ticket: NewTicket(t), Comments: comments, Runs: make([]Run, len(runs)), Approvals: []board.Approval{}}
	if d.Comments == nil {
		d.Comments = []board.Comment{}
	}
	for i, r := range runs {
		d.Runs[i] = NewRun(r)
	}
	return d
}

// Run is a run as `ticket show --json` and `status --json` list it.
type Run struct {
	Ref string `json:"ref"`
	board.Run
	DurationMs int64 `json:"durationMs"`
}

// NewRun returns the view of r.
func NewRun(r board.Run) Run {
	return Run{Ref: r.Ref().String(), Run: r, DurationMs: r.Duration().Milliseconds()}
}

// QueueEntry is one ticket of the queue of `status --json`: what the next
// heartbeat would pick in one project, and why.
type QueueEntry struct {
	Ref      string         `json:"ref"`
	Title    string         `json:"title"`
	State    board.State    `json:"state"`
	SubState board.SubState `json:"subState"`
	Priority int            `json:"priority"`
	Class    int            `json:"class"`
	Reason   string         `json:"reason"`
}

// NewQueueEntry returns the view of a pick.
func NewQueueEntry(p board.Pick) QueueEntry {
	t := p.Ticket
	return QueueEntry{
		Ref: t.Ref().String(), Title: t.Title, State: t.State, SubState: t.SubState,
		Priority: t.Priority, Class: int(p.Class), Reason: p.Class.String(),
	}
}

// ProjectSummary is one project of `status --json`.
type ProjectSummary struct {
	Slug   string      `json:"slug"`
	Name   string      `json:"name"`
	Active bool        `json:"active"`
	Counts StateCounts `json:"counts"`
	// Sandbox is the project's sandbox setting: "required", or "off",
	// where the agent's commands run on the host as the user who runs
	// Bonsai, a risk status and the web UI warn about.
	Sandbox string `json:"sandbox"`
	// SandboxProblem, for a project that requires the sandbox, says why
	// the sandbox cannot start on this machine and how to fix it; the
	// heartbeat skips the project's tickets meanwhile. Empty when the
	// sandbox starts, when it is off, or when it was not checked.
	SandboxProblem string `json:"sandboxProblem,omitempty"`
}
