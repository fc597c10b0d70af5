package heartbeat_test

import (
	"context"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestBeat_DeadlinesOnTheRealClock: the board's clock (opts.Now, which
// tests and schedules set) an hour behind the real one, past the beat's
// and the run's whole allowance, still gives the beat and its run their
// full time: each deadline is the real clock's. Taken from the board's
// clock, the beat ended at once ("reconcile: … context deadline
// exceeded") and the run had none.
func TestBeat_DeadlinesOnTheRealClock(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	behind := time.Now().Add(-time.Hour)
	e.opts.Now = func() time.Time { return behind }
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.InProgress)
	var left time.Duration
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		left = time.Until(job.Deadline)
		if err := ctx.Err(); err != nil {
			return heartbeat.Outcome{}, err
		}
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	rep := e.beat()
	if len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunCompleted {
		t.Fatalf("beat = %+v, want one completed run", rep.Runs)
	}
	if left <= 0 || left > e.opts.MaxDuration {
		t.Errorf("the run had %v left at its start, want up to the beat's %v", left, e.opts.MaxDuration)
	}
	if runs := e.runs(tk.Ref()); len(runs) != 1 {
		t.Errorf("%d runs recorded, want 1", len(runs))
	}
}
