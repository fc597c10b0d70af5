package web

import "github.com/bonsai-run/bonsai/internal/board"

// The JSON shapes of the API. They mirror the CLI's --json output
// (internal/cli/views.go, docs/cli.md) field for field, so a script can
// switch between `bonsai … --json` and the API: add fields, never rename or
// remove them.

// stateCounts counts a project's tickets per state; every state is present.
type stateCounts map[board.State]int

func newStateCounts(from map[board.State]int) stateCounts {
	c := stateCounts{}
	for _, s := range board.States {
		c[s] = from[s]
	}
	return c
}

// projectDetail is `bonsai project show --json`.
type projectDetail struct {
	board.Project
	Counts stateCounts `json:"counts"`
}

// ticketView is one element of `bonsai ticket list --json`.
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

// ticketDetail is `bonsai ticket show --json`.
type ticketDetail struct {
	ticketView
	Comments []board.Comment `json:"comments"`
	Runs     []runView       `json:"runs"`
}

// runView is a run as `bonsai ticket show --json` and `bonsai status --json`
// list it.
type runView struct {
	Ref string `json:"ref"`
	board.Run
	DurationMs int64 `json:"durationMs"`
}

func newRunView(r board.Run) runView {
	return runView{Ref: r.Ref().String(), Run: r, DurationMs: r.Duration().Milliseconds()}
}

// queueEntry is one entry of the queue of `bonsai status --json`.
type queueEntry struct {
	Ref      string         `json:"ref"`
	Title    string         `json:"title"`
	State    board.State    `json:"state"`
	SubState board.SubState `json:"subState"`
	Priority int            `json:"priority"`
	Class    int            `json:"class"`
	Reason   string         `json:"reason"`
}

// projectSummary is one project of `bonsai status --json`.
type projectSummary struct {
	Slug   string      `json:"slug"`
	Name   string      `json:"name"`
	Active bool        `json:"active"`
	Counts stateCounts `json:"counts"`
}

// statusView is `bonsai status --json`.
type statusView struct {
	Projects   []projectSummary `json:"projects"`
	Queue      []queueEntry     `json:"queue"`
	RecentRuns []runView        `json:"recentRuns"`
	// Heartbeat is the heartbeat's state as Options.Heartbeat reports it:
	// {"lastBeat": …, "paused": […]}.
	Heartbeat any `json:"heartbeat"`
}
