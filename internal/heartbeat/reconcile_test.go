package heartbeat_test

import (
	"context"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// A run a dead beat left running is charged, when the next beat marks it
// interrupted, what its transcript recorded since it started; earlier
// runs' messages are not charged again. The charge counts against the
// ticket's budget: with it, the ticket's cap is spent and no agent runs.
func TestBeat_InterruptedRunIsCharged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", func(p *board.Project) { p.Agent.TicketTokens = 1000 })
	tk := e.ticket("demo", "Crashy", board.InProgress)
	ctx := context.Background()

	path, err := session.Layout{Root: e.opts.Sessions}.Transcript(tk.ProjectID, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(-time.Hour)
	s, err := session.Create(path, "/w", session.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	say := func(in, out int64, cost float64) {
		t.Helper()
		m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("working")},
			Usage: &llm.Usage{Input: in, Output: out, CacheRead: 100, Cost: cost}}
		if _, err := s.AppendMessage(m, nil); err != nil {
			t.Fatal(err)
		}
	}
	say(5000, 500, 5) // a run before the crashed one, recorded elsewhere
	run, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskImplement, WorkerID: "dead"})
	if err != nil {
		t.Fatal(err)
	}
	now = time.Now()
	say(400, 40, 0.04)
	say(600, 60, 0.06)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	rep := e.beat()
	if rep.Interrupted != 1 {
		t.Fatalf("interrupted = %d, want 1", rep.Interrupted)
	}
	var got board.Run
	for _, r := range e.runs(tk.Ref()) {
		if r.ID == run.ID {
			got = r
		}
	}
	if got.Status != board.RunInterrupted || got.InputTokens != 1000 || got.OutputTokens != 100 ||
		got.CacheReadTokens != 200 || got.CostUSD < 0.0999 || got.CostUSD > 0.1001 {
		t.Fatalf("interrupted run = %+v, want interrupted with 1000/100/200 tokens and $0.10", got)
	}
	sp, err := e.db.Spend(ctx, "demo", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if sp.Tokens() < 1300 || sp.CostUSD < 0.0999 {
		t.Errorf("project spend = %+v, want the interrupted run counted", sp)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunBudgetExceeded || len(e.runner.calls()) != 0 {
		t.Errorf("runs = %+v, agent calls %d; want the ticket's budget spent and no agent", rep.Runs, len(e.runner.calls()))
	}
}

// finishedMeanwhile is a store on which another beat finishes the run
// whose ID is run just before this one's FinishRun, as a lease expiry
// elsewhere or another data directory's beat on a shared board may.
type finishedMeanwhile struct {
	heartbeat.Store
	run string
}

func (s finishedMeanwhile) FinishRun(ctx context.Context, r board.Run) (board.Run, error) {
	if r.ID != s.run {
		return s.Store.FinishRun(ctx, r)
	}
	other := r
	other.Status, other.Error = board.RunInterrupted, board.LeaseInterruptedError
	if _, err := s.Store.FinishRun(ctx, other); err != nil {
		return board.Run{}, err
	}
	return s.Store.FinishRun(ctx, r)
}

// TestBeat_ReconcileRunFinishedMeanwhile: a left run that another beat
// finishes while this one reconciles it does not fail the beat, which
// goes on to work the tickets.
func TestBeat_ReconcileRunFinishedMeanwhile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.Research)
	left, err := e.db.StartRun(context.Background(), board.Run{TicketID: tk.ID, Task: board.TaskResearch, WorkerID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Store = finishedMeanwhile{e.db, left.ID}
	h, err := heartbeat.New(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := h.Beat(context.Background())
	if err != nil {
		t.Fatalf("Beat: %v", err)
	}
	if rep.Interrupted != 0 || len(rep.Runs) != 1 {
		t.Errorf("report: %d interrupted, runs %+v; want none interrupted by this beat and the ticket picked", rep.Interrupted, rep.Runs)
	}
	if rs := e.runs(tk.Ref()); len(rs) != 2 || rs[1].ID != left.ID || rs[1].Error != board.LeaseInterruptedError || rs[0].Status != board.RunCompleted {
		t.Errorf("runs = %+v; want the left run finished by the other beat, then a completed one", rs)
	}
}
