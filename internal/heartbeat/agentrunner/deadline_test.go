package agentrunner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// A run the beat's deadline (heartbeat.maxDurationSec) stops, here in the
// middle of a long command, is recorded timeout, as for its own deadline:
// the next beat resumes it. The beat's context and the run's end at the
// same instant, and the loop must not mistake the first for a cancel.
func TestRunner_BeatDeadlineIsTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Long enough that preparing the workspace (a clone) ends well inside it
	// on a loaded machine: the deadline must end the run, not its start.
	f.opts.MaxDuration = 6 * time.Second
	ctx := context.Background()
	tk, err := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Slow",
		State: board.InProgress, Priority: 2}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	f.model.Push(call("c1", "bash", map[string]any{"command": "sleep 60"}), say("never"))
	rep := f.beat(t)
	if len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunTimeout {
		t.Fatalf("runs = %+v, want one timeout", rep.Runs)
	}
	runs, err := f.db.Runs(ctx, tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Status != board.RunTimeout || strings.Contains(runs[0].Error, "interrupt") {
		t.Fatalf("stored runs = %+v, want one timeout", runs)
	}
}
