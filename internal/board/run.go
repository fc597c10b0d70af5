package board

import (
	"fmt"
	"time"
)

// RunStatus is the outcome of an agent run.
type RunStatus string

// The run statuses. Running is the only one that is not final.
const (
	RunRunning        RunStatus = "running"
	RunCompleted      RunStatus = "completed"
	RunBlocked        RunStatus = "blocked"
	RunTimeout        RunStatus = "timeout"
	RunError          RunStatus = "error"
	RunInterrupted    RunStatus = "interrupted"
	RunBudgetExceeded RunStatus = "budget_exceeded"
	// RunStopped is a run a person stopped (`bonsai ticket stop`, the
	// ticket page's Stop button): not a failure, and not judged by the
	// no-progress guard.
	RunStopped RunStatus = "stopped"
)

// Valid reports whether s is a known status.
func (s RunStatus) Valid() bool {
	switch s {
	case RunRunning, RunCompleted, RunBlocked, RunTimeout, RunError, RunInterrupted, RunBudgetExceeded, RunStopped:
		return true
	}
	return false
}

// TaskKind says what a run is for.
type TaskKind string

// The task kinds.
const (
	TaskResearch  TaskKind = "research"  // study the ticket, write a plan
	TaskImplement TaskKind = "implement" // do the work
	TaskFeedback  TaskKind = "feedback"  // address a person's requested changes
	TaskReply     TaskKind = "reply"     // continue after a person answered
	TaskConflict  TaskKind = "conflict"  // bring the default branch in and resolve its conflicts
	TaskVerify    TaskKind = "verify"    // every sub-ticket is DONE: check the whole and submit it
)

// Run is one agent run on one ticket in one heartbeat.
type Run struct {
	ID           string     `json:"id"`
	TicketID     string     `json:"ticketId"`
	ProjectID    string     `json:"projectId"`
	ProjectSlug  string     `json:"project"`      // filled on read, for display
	TicketNumber int        `json:"ticketNumber"` // filled on read, for display
	Task         TaskKind   `json:"task"`
	Status       RunStatus  `json:"status"`
	SessionKey   string     `json:"sessionKey"`
	StartedAt    time.Time  `json:"startedAt"`
	FinishedAt   *time.Time `json:"finishedAt"`
	// Usage is what the run consumed; its fields appear inline in JSON.
	Usage
	Error    string `json:"error"`
	WorkerID string `json:"workerId"`
	// Progress is the heartbeat's verdict on the finished run: whether it
	// moved its ticket on; empty when the run was not judged.
	Progress RunProgress `json:"progress,omitempty"`
	// Model is the "provider/model" the run was given and Engine the
	// agent that ran it, both recorded when it started; empty for runs
	// recorded before runs kept them.
	Model  string `json:"model,omitempty"`
	Engine string `json:"engine,omitempty"`
	// Turns counts the model's responses in the run, recorded when it
	// finished.
	Turns int `json:"turns,omitempty"`
}

// RunProgress says whether a finished run moved its ticket on: a plan, a
// move, a comment or a commit (docs/heartbeat.md, "No endless loops").
type RunProgress string

// The verdicts. A run that is not judged (interrupted, stopped by a
// budget, a rate limit or an approval request, failed before the agent
// ran) has none.
const (
	ProgressNotJudged RunProgress = ""
	ProgressNone      RunProgress = "none"
	ProgressMade      RunProgress = "made"
)

// Valid reports whether p is a known verdict.
func (p RunProgress) Valid() bool {
	return p == ProgressNotJudged || p == ProgressNone || p == ProgressMade
}

// Ref returns the reference of the run's ticket.
func (r Run) Ref() Ref { return Ref{Project: r.ProjectSlug, Number: r.TicketNumber} }

// SessionKey returns the session key of a ticket's runs:
// "bonsai:{projectID}:ticket:{ticketID}".
func SessionKey(projectID, ticketID string) string {
	return fmt.Sprintf("bonsai:%s:ticket:%s", projectID, ticketID)
}

// Duration returns how long the run took, or 0 while it runs.
func (r Run) Duration() time.Duration {
	if r.FinishedAt == nil {
		return 0
	}
	return r.FinishedAt.Sub(r.StartedAt)
}

// RunControl is what the process running a run polls while it runs
// (docs/heartbeat.md, "Run control"): whether a person asked to stop it,
// and when the newest unresolved human comment on its ticket was posted,
// so that a new comment can steer the agent mid-run.
type RunControl struct {
	// Status is the run's status: a run that is no longer running has
	// nothing to control.
	Status RunStatus
	// StopRequestedAt is when a stop was asked for; nil when none was.
	StopRequestedAt *time.Time
	// StopRequestedBy names who asked (a person's name, or "cli").
	StopRequestedBy string
	// LastHumanComment is when the newest unresolved human comment on
	// the run's ticket was posted; zero when there is none.
	LastHumanComment time.Time
}
