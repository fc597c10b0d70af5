package heartbeat

import (
	"context"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat/tickettool"
)

// TestJudged counts only runs that ended on their own after the agent
// worked, and no provider pause.
func TestJudged(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		out    Outcome
		worked bool
		want   bool
	}{
		{Outcome{Status: board.RunCompleted}, true, true},
		{Outcome{Status: board.RunError}, true, true},
		{Outcome{Status: board.RunError}, false, false},
		{Outcome{Status: board.RunError, RetryAt: time.Unix(1, 0)}, true, false},
		{Outcome{Status: board.RunBudgetExceeded}, true, false},
		{Outcome{Status: board.RunInterrupted}, true, false},
	} {
		if got := judged(c.out, c.worked); got != c.want {
			t.Errorf("judged(%s, worked %v) = %v, want %v", c.out.Status, c.worked, got, c.want)
		}
	}
}

// TestProgressGuard blocks the ticket with a question after the second
// run in a row without progress, and not after the first.
func TestProgressGuard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	g := &progressGuard{store: u.db, notes: u.notes(), plan: Plan{Ticket: u.ticket, Task: board.TaskImplement}, log: u.log}
	finish := func() board.Run {
		run := u.startRun(t)
		out := Outcome{Status: board.RunCompleted}
		run.Status = out.Status
		// No head read: a run without plan, move or comment is not judged...
		if v := g.verdict(ctx, out, true, tickettool.Effects{}); v != board.ProgressNotJudged {
			t.Fatalf("verdict without a head = %s, want not judged", v)
		}
		// ...so the test records the verdict a head that did not move gives.
		run.Progress = board.ProgressNone
		done, err := u.db.FinishRun(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		return done
	}
	if why := g.block(ctx, finish()); why != "" {
		t.Fatalf("the first run without progress blocked the ticket: %q", why)
	}
	if why := g.block(ctx, finish()); why != "two runs in a row made no progress" {
		t.Fatalf("the second run without progress: block = %q", why)
	}
	cs := u.comments(t)
	if last := cs[len(cs)-1]; last.Kind != board.KindQuestion || last.AuthorType != board.Agent {
		t.Fatalf("last comment = %+v, want the agent-side question that blocks the ticket", last)
	}
	if v := g.verdict(ctx, Outcome{Status: board.RunCompleted}, true, tickettool.Effects{Planned: true}); v != board.ProgressMade {
		t.Fatalf("verdict of a run that planned = %s, want made", v)
	}
}
