package storetest

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// RunStats runs the contract of store.Stats like Run runs the rest: open
// must return a new, empty store reading the time from now. It is its own
// entry point so the stats contract lives in files of its own.
func RunStats(t *testing.T, open func(t *testing.T, now func() time.Time) store.Store) {
	cases := []testCase{
		{"Facts", testStatsFacts},
		{"Filters", testStatsFilters},
		{"Empty", testStatsEmpty},
	}
	for _, tc := range cases {
		t.Run("Stats/"+tc.name, func(t *testing.T) {
			t.Parallel()
			clock := newClock()
			s := open(t, clock.Now)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, s, clock)
		})
	}
}

// statsBoard is the small board of the stats contract, built through the
// store's own methods; the figures the tests expect are worked out by
// hand in the comments of statsBoard.build.
type statsBoard struct {
	day0, day1, day2 time.Time // the clock at the start of each day's work
	landedA, landedB time.Time
	landedD, landedO time.Time
	firstB, firstO   time.Time
}

// finishRun starts a run of tk and finishes it with status, usage and
// error, or fails the test.
func finishRun(t *testing.T, s store.Store, tk board.Ticket, status board.RunStatus, u board.Usage, errText string) {
	t.Helper()
	finishRunAs(t, s, tk, board.Run{Status: status, Usage: u, Error: errText})
}

// finishRunAs starts a run of tk with r's model and engine and finishes it
// with r's status, usage, turns and error, or fails the test.
func finishRunAs(t *testing.T, s store.Store, tk board.Ticket, r board.Run) {
	t.Helper()
	started, err := s.StartRun(t.Context(), board.Run{TicketID: tk.ID, Task: board.TaskImplement, Model: r.Model, Engine: r.Engine})
	if err != nil {
		t.Fatalf("StartRun(%s): %v", tk.Ref(), err)
	}
	r.ID = started.ID
	if _, err := s.FinishRun(t.Context(), r); err != nil {
		t.Fatalf("FinishRun(%s): %v", tk.Ref(), err)
	}
}

// build writes the board:
//
//	day 0 (2026-03-02): demo#1 (D) runs once ($1) and lands.
//	day 1 (2026-03-03): demo#2 (A) runs ($0.50, openai/gpt-5 on bonsai,
//	  3 turns), asks a question, goes to VERIFICATION, is sent back, runs
//	  again ($0.25, openai/gpt-5-codex on codex, 4 turns: its newest run's
//	  model and engine are the ticket's) and lands 4 h after its first run; demo#3 (B) runs ($1.25) and lands as a commit 10 min
//	  later (its landing's time, not its move's); other#1 (O) runs ($9)
//	  and lands.
//	day 2 (2026-03-04): demo#4 (C) fails twice with "boom" ($0.125 each),
//	  is stopped ($0.25), times out ($0.0625) and runs on.
func (b *statsBoard) build(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	mustProject(t, s, "other")
	b.day0 = clock.Now()
	d := ticketIn(t, s, "demo", board.InProgress)
	finishRun(t, s, d, board.RunCompleted, board.Usage{InputTokens: 1000, CostUSD: 1}, "")
	mustMove(t, s, d.Ref(), board.Verification, board.Agent)
	b.landedD = mustMove(t, s, d.Ref(), board.Done, board.Human).UpdatedAt

	clock.advance(24 * time.Hour)
	b.day1 = clock.Now()
	a := ticketIn(t, s, "demo", board.InProgress)
	finishRunAs(t, s, a, board.Run{Status: board.RunCompleted, Model: "openai/gpt-5", Engine: "bonsai", Turns: 3,
		Usage: board.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 1000, CacheWriteTokens: 50, ReasoningTokens: 5, CostUSD: 0.5}})
	mustComment(t, s, a.Ref(), board.Agent, board.KindQuestion, "which way?")
	mustComment(t, s, a.Ref(), board.Human, board.KindNote, "this way")
	mustComment(t, s, a.Ref(), board.Agent, board.KindStatus, "going on") // not a question
	clock.advance(time.Hour)
	mustMove(t, s, a.Ref(), board.Verification, board.Agent)
	clock.advance(time.Hour)
	mustMove(t, s, a.Ref(), board.InProgress, board.Human) // the return
	finishRunAs(t, s, a, board.Run{Status: board.RunCompleted, Model: "openai/gpt-5-codex", Engine: "codex", Turns: 4,
		Usage: board.Usage{InputTokens: 200, OutputTokens: 20, CostUSD: 0.25}})
	clock.advance(time.Hour)
	mustMove(t, s, a.Ref(), board.Verification, board.Agent)
	clock.advance(time.Hour)
	b.landedA = mustMove(t, s, a.Ref(), board.Done, board.Human).UpdatedAt

	bt := ticketIn(t, s, "demo", board.InProgress)
	b.firstB = clock.Now()
	finishRun(t, s, bt, board.RunCompleted, board.Usage{InputTokens: 300, OutputTokens: 30, CostUSD: 1.25}, "")
	mustComment(t, s, bt.Ref(), board.Human, board.KindNote, "looks good")    // neither a return
	mustComment(t, s, bt.Ref(), board.Human, board.KindQuestion, "and this?") // nor the agent's question
	mustMove(t, s, bt.Ref(), board.Verification, board.Agent)
	b.landedB = clock.Now().Add(10 * time.Minute)
	_, err := s.SaveLanding(ctx, board.Landing{Ref: bt.Ref(), Mode: board.LandMerge, Commit: "abc123", LandedAt: b.landedB})
	if err != nil {
		t.Fatal(err)
	}
	clock.advance(30 * time.Minute)
	mustMove(t, s, bt.Ref(), board.Done, board.Human)

	o := ticketIn(t, s, "other", board.InProgress)
	b.firstO = clock.Now()
	finishRun(t, s, o, board.RunCompleted, board.Usage{InputTokens: 9, CostUSD: 9}, "")
	mustMove(t, s, o.Ref(), board.Verification, board.Agent)
	b.landedO = mustMove(t, s, o.Ref(), board.Done, board.Human).UpdatedAt

	clock.advance(24 * time.Hour)
	b.day2 = clock.Now()
	c := ticketIn(t, s, "demo", board.InProgress)
	finishRun(t, s, c, board.RunError, board.Usage{CostUSD: 0.125}, "boom")
	finishRun(t, s, c, board.RunError, board.Usage{CostUSD: 0.125}, "boom")
	finishRun(t, s, c, board.RunStopped, board.Usage{CostUSD: 0.25}, "")
	clock.tick()
	finishRun(t, s, c, board.RunTimeout, board.Usage{CostUSD: 0.0625}, "took too long")
	mustStart(t, s, c, board.TaskImplement) // running: spends nothing yet, ends nowhere
}

// midnight returns the UTC midnight of ts's day.
func midnight(ts time.Time) time.Time { return ts.UTC().Truncate(24 * time.Hour) }

func (b *statsBoard) landedSince1() []store.LandedTicket {
	return []store.LandedTicket{
		{ProjectSlug: "demo", Number: 2, Title: "ticket in IN_PROGRESS", LandedAt: b.landedA, FirstRunAt: b.day1, Runs: 2,
			Usage: board.Usage{InputTokens: 300, OutputTokens: 30, CacheReadTokens: 1000, CacheWriteTokens: 50, ReasoningTokens: 5, CostUSD: 0.75},
			Turns: 7, Model: "openai/gpt-5-codex", Engine: "codex", Returns: 1, Questions: 1},
		{ProjectSlug: "demo", Number: 3, Title: "ticket in IN_PROGRESS", LandedAt: b.landedB, FirstRunAt: b.firstB, Runs: 1,
			Usage: board.Usage{InputTokens: 300, OutputTokens: 30, CostUSD: 1.25}},
		{ProjectSlug: "other", Number: 1, Title: "ticket in IN_PROGRESS", LandedAt: b.landedO, FirstRunAt: b.firstO, Runs: 1,
			Usage: board.Usage{InputTokens: 9, CostUSD: 9}},
	}
}

func (b *statsBoard) daysSince1() []store.DaySpend {
	return []store.DaySpend{
		// Runs that recorded no model (B's) come first, then by model.
		{ProjectSlug: "demo", Day: midnight(b.day1), Runs: 1, Usage: board.Usage{InputTokens: 300, OutputTokens: 30, CostUSD: 1.25}},
		{ProjectSlug: "demo", Model: "openai/gpt-5", Engine: "bonsai", Day: midnight(b.day1), Runs: 1,
			Usage: board.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 1000, CacheWriteTokens: 50, ReasoningTokens: 5, CostUSD: 0.5}},
		{ProjectSlug: "demo", Model: "openai/gpt-5-codex", Engine: "codex", Day: midnight(b.day1), Runs: 1,
			Usage: board.Usage{InputTokens: 200, OutputTokens: 20, CostUSD: 0.25}},
		{ProjectSlug: "demo", Day: midnight(b.day2), Runs: 5, Usage: board.Usage{CostUSD: 0.5625}},
		{ProjectSlug: "other", Day: midnight(b.day1), Runs: 1, Usage: board.Usage{InputTokens: 9, CostUSD: 9}},
	}
}

func (b *statsBoard) endings() []store.RunEnding {
	return []store.RunEnding{
		{ProjectSlug: "demo", Status: board.RunError, Error: "boom", Runs: 2, Last: b.day2},
		{ProjectSlug: "demo", Status: board.RunStopped, Runs: 1, Last: b.day2},
		{ProjectSlug: "demo", Status: board.RunTimeout, Error: "took too long", Runs: 1, Last: b.day2.Add(time.Millisecond)},
	}
}

func testStatsFacts(t *testing.T, s store.Store, clock *clock) {
	var b statsBoard
	b.build(t, s, clock)
	got, err := s.StatsFacts(t.Context(), store.StatsFilter{Since: b.day1})
	if err != nil {
		t.Fatal(err)
	}
	if b.landedA.Sub(b.day1) != 4*time.Hour {
		t.Fatalf("the board took %v from A's first run to its landing, want 4h", b.landedA.Sub(b.day1))
	}
	same(t, "landed tickets since day 1", got.Landed, b.landedSince1())
	same(t, "spend per day since day 1", got.Days, b.daysSince1())
	same(t, "failed and stopped runs", got.Endings, b.endings())
}

func testStatsFilters(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	var b statsBoard
	b.build(t, s, clock)

	other, err := s.StatsFacts(ctx, store.StatsFilter{ProjectSlug: "other", Since: b.day1})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "other's facts", other, store.StatsFacts{Landed: b.landedSince1()[2:], Days: b.daysSince1()[4:], Endings: []store.RunEnding{}})

	// Without since, demo's first ticket and day 0 count too.
	all, err := s.StatsFacts(ctx, store.StatsFilter{ProjectSlug: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	d := store.LandedTicket{ProjectSlug: "demo", Number: 1, Title: "ticket in IN_PROGRESS", LandedAt: b.landedD,
		FirstRunAt: b.day0, Runs: 1, Usage: board.Usage{InputTokens: 1000, CostUSD: 1}}
	same(t, "demo's landed tickets", all.Landed, append([]store.LandedTicket{d}, b.landedSince1()[:2]...))
	day0 := store.DaySpend{ProjectSlug: "demo", Day: midnight(b.day0), Runs: 1, Usage: board.Usage{InputTokens: 1000, CostUSD: 1}}
	same(t, "demo's days", all.Days, append([]store.DaySpend{day0}, b.daysSince1()[:4]...))
	same(t, "demo's failed and stopped runs", all.Endings, b.endings())

	// Since is inclusive, and a later since leaves out what came before.
	late, err := s.StatsFacts(ctx, store.StatsFilter{Since: b.landedB})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "tickets landed since B landed", late.Landed, b.landedSince1()[1:])

	_, err = s.StatsFacts(ctx, store.StatsFilter{ProjectSlug: "nope"})
	wantCode(t, err, board.ENOTFOUND, "nope")
}

func testStatsEmpty(t *testing.T, s store.Store, _ *clock) {
	mustProject(t, s, "demo")
	ticketIn(t, s, "demo", board.Verification)
	got, err := s.StatsFacts(t.Context(), store.StatsFilter{})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "facts of a board without landings or runs", got,
		store.StatsFacts{Landed: []store.LandedTicket{}, Days: []store.DaySpend{}, Endings: []store.RunEnding{}})
}
