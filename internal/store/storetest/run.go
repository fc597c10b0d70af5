package storetest

import (
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var runCases = []testCase{
	{"StartAndFinish", testRunStartAndFinish},
	{"Errors", testRunErrors},
	{"Lists", testRunLists},
	{"Running", testRunRunning},
	{"Interrupt", testRunInterrupt},
	{"Spend", testRunSpend},
	{"Stop", testRunStop},
	{"Control", testRunControl},
	{"Controls", testRunControls},
}

func mustStart(t *testing.T, s store.Store, tk board.Ticket, task board.TaskKind) board.Run {
	t.Helper()
	r, err := s.StartRun(t.Context(), board.Run{TicketID: tk.ID, Task: task, WorkerID: "worker-1"})
	if err != nil {
		t.Fatalf("StartRun(%s): %v", tk.Ref(), err)
	}
	return r
}

func testRunStartAndFinish(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	clock.tick()

	before := lastEventID(t, s)
	r, err := s.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskImplement, WorkerID: "host-1", Status: board.RunCompleted, Usage: board.Usage{InputTokens: 99},
		Model: "anthropic/claude-sonnet-4-5", Engine: "codex", Turns: 7})
	if err != nil {
		t.Fatal(err)
	}
	wantRecent(t, "StartedAt", r.StartedAt)
	want := board.Run{
		ID: r.ID, TicketID: tk.ID, ProjectID: tk.ProjectID, Task: board.TaskImplement, Status: board.RunRunning,
		SessionKey: board.SessionKey(tk.ProjectID, tk.ID), StartedAt: r.StartedAt, WorkerID: "host-1",
		ProjectSlug: "demo", TicketNumber: tk.Number, // runs name their ticket
		Model: "anthropic/claude-sonnet-4-5", Engine: "codex", // what it ran with; turns only when it ends
	}
	if r.ID == "" {
		t.Error("run has no ID")
	}
	same(t, "started run", r, want)
	es := wantEvents(t, s, before, board.EventRunStarted)
	if len(es) == 1 && (es[0].TicketID != tk.ID || es[0].ProjectID != tk.ProjectID) {
		t.Errorf("event = %+v, want ticket %s", es[0], tk.ID)
	}
	// Starting a run counts as an update of the ticket.
	if got := mustGet(t, s, tk.Ref()); !got.UpdatedAt.Equal(r.StartedAt) {
		t.Errorf("ticket UpdatedAt = %v, want the run's start %v", got.UpdatedAt, r.StartedAt)
	}
	clock.tick()

	before = lastEventID(t, s)
	done, err := s.FinishRun(ctx, board.Run{
		ID: r.ID, Status: board.RunCompleted, Usage: board.Usage{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 5000, CacheWriteTokens: 800, ReasoningTokens: 120, CostUSD: 0.0421}, Error: "", TicketID: "ignored", WorkerID: "ignored",
		Turns: 12, Model: "ignored", Engine: "ignored",
	})
	if err != nil {
		t.Fatal(err)
	}
	if done.FinishedAt == nil || !done.FinishedAt.After(r.StartedAt) {
		t.Fatalf("FinishedAt = %v, want after %v", done.FinishedAt, r.StartedAt)
	}
	wantRecent(t, "FinishedAt", *done.FinishedAt)
	want.Status, want.FinishedAt = board.RunCompleted, done.FinishedAt
	want.InputTokens, want.OutputTokens, want.CacheReadTokens, want.CacheWriteTokens, want.CostUSD = 1200, 340, 5000, 800, 0.0421
	want.ReasoningTokens = 120 // the thinking among the output tokens
	want.Turns = 12
	same(t, "finished run", done, want)
	wantEvents(t, s, before, board.EventRunFinished)

	runs, err := s.Runs(ctx, tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	same(t, "runs read back", runs, []board.Run{done})

	// A failed run keeps its error text and the progress verdict, in
	// the run and in its event.
	r2 := mustStart(t, s, tk, board.TaskImplement)
	before = lastEventID(t, s)
	failed, err := s.FinishRun(ctx, board.Run{ID: r2.ID, Status: board.RunError, Error: "model returned 500", Progress: board.ProgressNone})
	if err != nil || failed.Status != board.RunError || failed.Error != "model returned 500" || failed.Progress != board.ProgressNone {
		t.Errorf("FinishRun(error) = %+v, %v", failed, err)
	}
	if es := wantEvents(t, s, before, board.EventRunFinished); len(es) == 1 && !strings.Contains(string(es[0].Data), `"progress":"none"`) {
		t.Errorf("run.finished data = %s, want the progress verdict", es[0].Data)
	}
	runs, err = s.Runs(ctx, tk.Ref())
	if err != nil || len(runs) != 2 || runs[0].Progress != board.ProgressNone || runs[1].Progress != board.ProgressNotJudged {
		t.Errorf("Runs = %+v, %v; want the verdicts read back", runs, err)
	}
}

func testRunErrors(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.Research)
	before := lastEventID(t, s)

	_, err := s.StartRun(ctx, board.Run{TicketID: tk.ID, Task: "dance"})
	wantCode(t, err, board.EINVALID, "unknown task")
	_, err = s.StartRun(ctx, board.Run{TicketID: "no-such-ticket", Task: board.TaskResearch})
	wantCode(t, err, board.ENOTFOUND, "no-such-ticket")
	_, err = s.FinishRun(ctx, board.Run{ID: "no-such-run", Status: board.RunCompleted})
	wantCode(t, err, board.ENOTFOUND, `run "no-such-run" not found`)
	wantEvents(t, s, before)

	// Every task kind is accepted, the conflict task included.
	for _, k := range []board.TaskKind{board.TaskResearch, board.TaskImplement, board.TaskFeedback, board.TaskReply, board.TaskConflict} {
		r := mustStart(t, s, ticketIn(t, s, "demo", board.InProgress), k)
		if r.Task != k {
			t.Errorf("StartRun(%s) = task %s", k, r.Task)
		}
	}

	r := mustStart(t, s, tk, board.TaskResearch)
	before = lastEventID(t, s)
	for _, st := range []board.RunStatus{board.RunRunning, "exploded", ""} {
		_, err = s.FinishRun(ctx, board.Run{ID: r.ID, Status: st})
		wantCode(t, err, board.EINVALID, "")
	}
	_, err = s.FinishRun(ctx, board.Run{ID: r.ID, Status: board.RunCompleted, Usage: board.Usage{InputTokens: -1}})
	wantCode(t, err, board.EINVALID, "negative")
	_, err = s.FinishRun(ctx, board.Run{ID: r.ID, Status: board.RunCompleted, Progress: "some"})
	wantCode(t, err, board.EINVALID, "progress")
	wantEvents(t, s, before)

	if _, err := s.FinishRun(ctx, board.Run{ID: r.ID, Status: board.RunBlocked}); err != nil {
		t.Fatal(err)
	}
	before = lastEventID(t, s)
	_, err = s.FinishRun(ctx, board.Run{ID: r.ID, Status: board.RunCompleted})
	wantCode(t, err, board.ECONFLICT, "already finished as blocked")
	wantEvents(t, s, before)
}

func testRunLists(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	mustProject(t, s, "other")
	a := ticketIn(t, s, "demo", board.InProgress)
	b := ticketIn(t, s, "other", board.Research)
	var started []board.Run
	for _, tk := range []board.Ticket{a, b, a, a, b} {
		started = append(started, mustStart(t, s, tk, board.TaskImplement))
		clock.tick()
	}
	runsOf := func(tk board.Ticket) []board.Run {
		rs, err := s.Runs(ctx, tk.Ref())
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	same(t, "runs of demo#1, newest first", runsOf(a), []board.Run{started[3], started[2], started[0]})
	same(t, "runs of other#1, newest first", runsOf(b), []board.Run{started[4], started[1]})
	none := ticketIn(t, s, "demo", board.Backlog)
	same(t, "runs of a ticket never run", runsOf(none), []board.Run{})

	recent, err := s.RecentRuns(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "three most recent runs", recent, []board.Run{started[4], started[3], started[2]})
	recent, err = s.RecentRuns(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != len(started) {
		t.Errorf("RecentRuns(100) = %d runs, want %d", len(recent), len(started))
	}
	recent, err = s.RecentRuns(ctx, 0)
	if err != nil || len(recent) == 0 || recent[0].ID != started[4].ID {
		t.Errorf("RecentRuns(0) = %d runs, %v; want a default page starting with the newest", len(recent), err)
	}
}

func testRunRunning(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	running := func() []board.Run {
		t.Helper()
		rs, err := s.RunningRuns(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	same(t, "running runs of an empty store", running(), []board.Run{})
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	old := mustStart(t, s, tk, board.TaskImplement)
	clock.tick()
	// Many newer runs, finished, do not hide the old one still running.
	for range 30 {
		r := mustStart(t, s, tk, board.TaskFeedback)
		if _, err := s.FinishRun(ctx, board.Run{ID: r.ID, Status: board.RunCompleted}); err != nil {
			t.Fatal(err)
		}
	}
	clock.tick()
	other := mustStart(t, s, ticketIn(t, s, "demo", board.Research), board.TaskResearch)
	same(t, "running runs, newest first", running(), []board.Run{other, old})
	if _, err := s.FinishRun(ctx, board.Run{ID: other.ID, Status: board.RunBlocked}); err != nil {
		t.Fatal(err)
	}
	same(t, "running runs after one finished", running(), []board.Run{old})
}

func testRunInterrupt(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	finished := mustStart(t, s, tk, board.TaskImplement)
	finished, err := s.FinishRun(ctx, board.Run{ID: finished.ID, Status: board.RunCompleted})
	if err != nil {
		t.Fatal(err)
	}
	r1 := mustStart(t, s, tk, board.TaskImplement)
	r2 := mustStart(t, s, ticketIn(t, s, "demo", board.Research), board.TaskResearch)

	before := lastEventID(t, s)
	n, err := s.InterruptRuns(ctx)
	if err != nil || n != 2 {
		t.Fatalf("InterruptRuns = %d, %v; want 2", n, err)
	}
	es := wantEvents(t, s, before, board.EventRunFinished, board.EventRunFinished)
	seen := map[string]bool{}
	for _, e := range es {
		seen[e.TicketID] = true
	}
	if !seen[r1.TicketID] || !seen[r2.TicketID] {
		t.Errorf("events %+v do not name both tickets", es)
	}
	for _, r := range []board.Run{r1, r2} {
		rs, err := s.RecentRuns(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range rs {
			if got.ID == r.ID && (got.Status != board.RunInterrupted || got.FinishedAt == nil || got.Error == "") {
				t.Errorf("interrupted run = %+v, want status interrupted, a finish time and an error text", got)
			}
			if got.ID == finished.ID {
				same(t, "finished run after InterruptRuns", got, finished)
			}
		}
	}

	// Nothing left to interrupt, and an interrupted run cannot finish.
	before = lastEventID(t, s)
	if n, err := s.InterruptRuns(ctx); err != nil || n != 0 {
		t.Errorf("second InterruptRuns = %d, %v; want 0", n, err)
	}
	_, err = s.FinishRun(ctx, board.Run{ID: r1.ID, Status: board.RunCompleted})
	wantCode(t, err, board.ECONFLICT, "already finished as interrupted")
	wantEvents(t, s, before)
}
