package heartbeat

import (
	"context"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// RunMark is the environment variable every command of a run's agent gets,
// holding the run's ID. Its processes keep it through setsid and double
// forks, so a later beat can find what a dead beat's run left running.
const RunMark = "BONSAI_RUN_ID"

// interruptedError is the error text of a run a dead beat left running.
const interruptedError = "the heartbeat running it stopped before the run finished"

// marker is an executor that can mark the commands it starts.
type marker interface{ Mark(kv string) }

// runMark is the KEY=VALUE pair that marks the commands of run id.
func runMark(id string) string { return RunMark + "=" + id }

// killRun kills the processes the commands of run id left, and reports
// whether none is left. A failure is logged.
func (h *Heartbeat) killRun(id string) bool {
	if h.opts.Reap == nil {
		return true
	}
	n, err := h.opts.Reap(runMark(id))
	if n > 0 {
		h.log.Warn("killed processes a run left", "run", id, "count", n)
	}
	if err != nil {
		h.log.Error("kill processes a run left", "run", id, "err", err)
		return false
	}
	return true
}

// reconcile ends the runs a dead beat left running (this beat holds the
// lock, so no live beat owns them): it kills the processes their commands
// left, then marks each interrupted, charged with the usage its
// transcript recorded since it started. A run whose processes could not
// all be killed stays running, and its ticket is returned in busy, so no
// agent starts in a worktree where one still lives.
func (h *Heartbeat) reconcile(ctx context.Context) (n int, busy map[string]bool, err error) {
	runs, err := h.opts.Store.RunningRuns(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("reconcile: %w", err)
	}
	busy = map[string]bool{}
	for _, r := range runs {
		if !h.killRun(r.ID) {
			busy[r.TicketID] = true
			continue
		}
		if err := h.chargeTranscript(&r); err != nil {
			h.log.Error("read the usage of an interrupted run", "run", r.ID, "err", err)
		}
		r.Status, r.Error = board.RunInterrupted, interruptedError
		if _, err := h.opts.Store.FinishRun(ctx, r); err != nil {
			return n, busy, fmt.Errorf("reconcile: %w", err)
		}
		n++
	}
	return n, busy, nil
}

// chargeTranscript sets r's usage to what its ticket's transcript recorded
// since the run started, as the runner that wrote it reads it (none when
// it cannot be read, or the runner cannot tell).
func (h *Heartbeat) chargeTranscript(r *board.Run) error {
	r.Usage = board.Usage{}
	c, ok := h.opts.Runner.(Charger)
	if !ok {
		return nil
	}
	path, err := h.transcript(r.ProjectID, r.TicketID)
	if err != nil {
		return err
	}
	r.Usage, err = c.Spent(path, r.StartedAt)
	return err
}
