package heartbeat_test

import (
	"context"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestBeat_ReadOnlyRuns: a run promises no writes (Job.ReadOnly: every
// command read-only, write and edit refused) in a read-only project, and
// on a ticket in RESEARCH where a person approves each plan; not in
// auto mode's research, nor once a plan project's ticket is IN_PROGRESS.
func TestBeat_ReadOnlyRuns(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode  board.PermissionMode
		state board.State
		want  bool
	}{
		{board.ModePlan, board.Research, true},
		{board.ModePlan, board.InProgress, false},
		{board.ModeReadOnly, board.Research, true},
		{board.ModeReadOnly, board.InProgress, true},
		{board.ModeAuto, board.Research, false},
		{board.ModeAsk, board.Research, false},
	} {
		e := newEnv(t)
		e.project("p", func(p *board.Project) { p.Agent.PermissionMode = c.mode })
		e.ticket("p", "Work", c.state)
		var got, ran bool
		e.runner.run = func(_ context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
			got, ran = job.ReadOnly, true
			return heartbeat.Outcome{Status: board.RunCompleted}, nil
		}
		e.beat()
		if !ran || got != c.want {
			t.Errorf("%s project, ticket in %s: ran %v, Job.ReadOnly %v; want %v", c.mode, c.state, ran, got, c.want)
		}
	}
}
