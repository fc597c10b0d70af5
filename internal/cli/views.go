package cli

import (
	"github.com/bonsai-run/bonsai/internal/board"
)

// The JSON shapes of --json output. They are a contract documented in
// docs/cli.md: add fields, never rename or remove them.

// stateCounts counts a project's tickets per state; every state is present.
type stateCounts map[board.State]int

func newStateCounts() stateCounts {
	c := stateCounts{}
	for _, s := range board.States {
		c[s] = 0
	}
	return c
}

type projectDetail struct {
	board.Project
	Counts stateCounts `json:"counts"`
}

type ticketView struct {
	Ref string `json:"ref"`
	board.Ticket
}

func newTicketView(t board.Ticket) ticketView {
	if t.Criteria == nil {
		t.Criteria = []string{}
	}
	return ticketView{Ref: t.Ref().String(), Ticket: t}
}

type ticketDetail struct {
	ticketView
	Comments []board.Comment `json:"comments"`
	Runs     []runView       `json:"runs"`
}

type runView struct {
	Ref string `json:"ref"`
	board.Run
	DurationMs int64 `json:"durationMs"`
}

func newRunView(r board.Run) runView {
	return runView{Ref: r.Ref().String(), Run: r, DurationMs: r.Duration().Milliseconds()}
}

type queueEntry struct {
	Ref      string         `json:"ref"`
	Title    string         `json:"title"`
	State    board.State    `json:"state"`
	SubState board.SubState `json:"subState"`
	Priority int            `json:"priority"`
	Class    int            `json:"class"`
	Reason   string         `json:"reason"`
}

type projectSummary struct {
	Slug   string      `json:"slug"`
	Name   string      `json:"name"`
	Active bool        `json:"active"`
	Counts stateCounts `json:"counts"`
}

type statusView struct {
	Heartbeat  heartbeatView    `json:"heartbeat"`
	Projects   []projectSummary `json:"projects"`
	Queue      []queueEntry     `json:"queue"`
	RecentRuns []runView        `json:"recentRuns"`
}
