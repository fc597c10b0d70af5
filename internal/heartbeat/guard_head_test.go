package heartbeat_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// countingHeads counts the reads of a branch's head from the clone (two
// host git commands each: the clone's check and rev-parse).
type countingHeads struct {
	heartbeat.Workspaces
	n atomic.Int64
}

func (c *countingHeads) Head(ctx context.Context, p board.Project, branch string) (string, error) {
	c.n.Add(1)
	return c.Workspaces.Head(ctx, p, branch)
}

// TestBeat_GuardTakesTheHeadFromPrepare: the no-progress guard compares
// the branch's head after the run with the one Prepare left
// (workspace.Workspace.Head), read from the clone only after the run: an
// idle run and one that commits are judged as before, with one read of
// the head each.
func TestBeat_GuardTakesTheHeadFromPrepare(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	heads := &countingHeads{Workspaces: e.ws}
	e.opts.Workspaces = heads
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.InProgress)
	commit := false
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		if commit {
			shell(t, ctx, job, "echo x > x.txt && git add x.txt && git commit -q -m x")
		}
		return idle(ctx, job)
	}
	e.beat()
	commit = true
	e.beat()
	rs := e.runs(tk.Ref())
	if len(rs) != 2 || rs[1].Progress != board.ProgressNone || rs[0].Progress != board.ProgressMade {
		t.Errorf("runs = %+v; want an idle run without progress, then one that committed with it", rs)
	}
	if n := heads.n.Load(); n != 2 {
		t.Errorf("read the branch's head %d times for two runs, want once each, after the run", n)
	}
}
