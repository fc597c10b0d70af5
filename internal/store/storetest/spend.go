package storetest

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

func testRunSpend(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	mustProject(t, s, "other")
	a := ticketIn(t, s, "demo", board.InProgress)
	b := ticketIn(t, s, "demo", board.Research)
	o := ticketIn(t, s, "other", board.InProgress)

	empty, err := s.Spend(ctx, "demo", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "spend without runs", empty, store.Spend{})

	finish := func(tk board.Ticket, in, out, cr, cw int64, usd float64) board.Run {
		t.Helper()
		r := mustStart(t, s, tk, board.TaskImplement)
		r, err := s.FinishRun(ctx, board.Run{ID: r.ID, Status: board.RunCompleted, Usage: board.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: cr, CacheWriteTokens: cw, CostUSD: usd}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	finish(a, 100, 10, 1000, 50, 0.5)
	clock.tick()
	second := finish(b, 200, 20, 0, 0, 0.25)
	finish(o, 9999, 9999, 9999, 9999, 99) // another project's runs never count
	running := mustStart(t, s, a, board.TaskImplement)

	all, err := s.Spend(ctx, "demo", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "spend of every run", all, store.Spend{Runs: 3, Usage: board.Usage{InputTokens: 300, OutputTokens: 30, CacheReadTokens: 1000, CacheWriteTokens: 50, CostUSD: 0.75}})
	if all.Tokens() != 1380 {
		t.Errorf("Tokens() = %d, want 1380", all.Tokens())
	}

	// since is inclusive: a run started at that very millisecond counts;
	// the run still going counts with what it has recorded (nothing yet).
	later, err := s.Spend(ctx, "demo", second.StartedAt)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "spend since the second run", later, store.Spend{Runs: 2, Usage: board.Usage{InputTokens: 200, OutputTokens: 20, CostUSD: 0.25}})
	none, err := s.Spend(ctx, "demo", running.StartedAt.Add(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	same(t, "spend after the last run started", none, store.Spend{})

	// An empty slug sums every project.
	total, err := s.Spend(ctx, "", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "spend of every project", total, store.Spend{Runs: 4, Usage: board.Usage{InputTokens: 10299, OutputTokens: 10029, CacheReadTokens: 10999, CacheWriteTokens: 10049, CostUSD: 99.75}})

	_, err = s.Spend(ctx, "nope", time.Time{})
	wantCode(t, err, board.ENOTFOUND, "nope")
}
