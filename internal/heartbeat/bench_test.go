package heartbeat_test

import (
	"context"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// BenchmarkBeat_Idle is a beat with nothing to pick over 10 projects:
// lock, reconcile, worktree cleanup scan, one pick query, state file.
// Target: well under a millisecond-scale budget next to process start-up
// (the whole-process target is in bench/heartbeat).
func BenchmarkBeat_Idle(b *testing.B) {
	e := newEnv(b)
	for _, slug := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		e.project(slug, nil)
		e.ticket(slug, "Later", board.Backlog)
	}
	h, err := heartbeat.New(e.opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := h.Beat(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBeat_WithWork is a beat that runs one agent that returns at
// once: it measures the runtime's own overhead per run (pick, run record,
// git fetch and worktree reuse, prompt assembly, results, push check)
// excluding the model and the tools.
// Target (issue 5): ≤ 30 ms.
func BenchmarkBeat_WithWork(b *testing.B) {
	e := newEnv(b)
	e.project("demo", nil)
	e.ticket("demo", "Work", board.InProgress, "it works")
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		// A comment is progress, so the no-progress guard lets the
		// ticket run on every beat.
		call(b, ctx, job, "ticket_comment", map[string]string{"kind": "status", "content": "done"})
		return heartbeat.Outcome{Status: board.RunCompleted, Summary: "done"}, nil
	}
	h, err := heartbeat.New(e.opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := h.Beat(ctx); err != nil { // clone and create the worktree once
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		rep, err := h.Beat(ctx)
		if err != nil || len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunCompleted {
			b.Fatalf("beat = %+v, %v", rep, err)
		}
	}
}
