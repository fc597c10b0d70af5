package store

import (
	"context"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Stats reads the stored facts insights are computed from (issue 32):
// what each landed ticket took, what runs spent per day and how the runs
// that did not complete ended. It sums in the database, so its cost grows
// with the tickets landed and the days covered, not with the runs.
type Stats interface {
	// StatsFacts returns the facts of f's project (every project when
	// f.ProjectSlug is empty, archived ones included) since f.Since. An
	// unknown slug is ENOTFOUND.
	StatsFacts(ctx context.Context, f StatsFilter) (StatsFacts, error)
}

// StatsFilter selects the facts StatsFacts returns.
type StatsFilter struct {
	// ProjectSlug selects one project; empty selects every project.
	ProjectSlug string
	// Since keeps tickets landed and runs started at or after it; zero
	// keeps everything.
	Since time.Time
}

// StatsFacts are the facts of a board that insights are made of. Every
// list is in a fixed order, so two reads of one board are equal.
type StatsFacts struct {
	// Landed are the tickets in DONE that landed at or after the filter's
	// Since, by project slug then number.
	Landed []LandedTicket
	// Days are the runs started at or after Since, summed per project and
	// UTC day, by project slug then day.
	Days []DaySpend
	// Endings are the runs started at or after Since that failed or were
	// stopped, counted per project, status and error text, by project
	// slug, status, then error.
	Endings []RunEnding
}

// LandedTicket is what one landed ticket took, over all of its runs and
// its whole thread (not only those since the filter's Since).
type LandedTicket struct {
	ProjectSlug string
	Number      int
	Title       string
	// LandedAt is when its work landed as a commit, else when it last
	// moved to DONE, else (a ticket written without its events, as by a
	// benchmark's seed) when it was last updated.
	LandedAt time.Time
	// FirstRunAt is when its first run started; zero when it had none.
	FirstRunAt time.Time
	// Runs counts its runs; Usage and Turns sum theirs.
	Runs  int
	Turns int
	board.Usage
	// Model and Engine are what its newest run that recorded them ran
	// with; empty when none did (runs recorded before runs kept them).
	Model, Engine string
	// Returns counts the times a person sent its work back (each return
	// writes one feedback comment).
	Returns int
	// Questions counts the questions its agent asked a person.
	Questions int
}

// DaySpend is what one project's runs started on one UTC day with one
// model and engine spent.
type DaySpend struct {
	ProjectSlug string
	// Model and Engine are what the runs ran with; empty for runs
	// recorded before runs kept them.
	Model, Engine string
	// Day is the day's midnight, UTC.
	Day  time.Time
	Runs int
	board.Usage
}

// RunEnding counts one project's runs that ended alike: in one status
// other than completed, blocked or running, with one error text.
type RunEnding struct {
	ProjectSlug string
	Status      board.RunStatus
	// Error is the runs' error text; empty when they recorded none.
	Error string
	Runs  int
	// Last is when the newest of them started.
	Last time.Time
}

// EndingStatuses are the run statuses RunEnding counts: the runs that
// failed, and those a person or a budget stopped.
var EndingStatuses = []board.RunStatus{board.RunError, board.RunTimeout, board.RunInterrupted,
	board.RunBudgetExceeded, board.RunStopped}
