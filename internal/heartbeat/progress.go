package heartbeat

import (
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Progress is where one run stands, for Options.Progress: sent when the
// run starts, after each model response and when it ends.
type Progress struct {
	Ticket  string // "demo#3"
	Task    board.TaskKind
	Model   string
	RunID   string
	Started time.Time
	// Turns counts the model responses so far; Usage is what they used.
	Turns int
	Usage board.Usage
	// End is the run's report once it ended; nil while it runs.
	End *RunReport
}

// progress sends p to Options.Progress, if set.
func (h *Heartbeat) progress(p Progress) {
	if h.opts.Progress != nil {
		h.opts.Progress(p)
	}
}

// standing is where r stands now, for Options.Progress.
func (r *runState) standing(started time.Time) Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Progress{Ticket: r.plan.Ticket.Ref().String(), Task: r.plan.Task, Model: r.plan.Model, RunID: r.run.ID,
		Started: started, Turns: r.turns, Usage: r.usage}
}
