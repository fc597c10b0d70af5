package heartbeat_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

func TestLimits_Of(t *testing.T) {
	t.Parallel()
	cfg := heartbeat.Limits{RunTokens: 1000, RunUSD: 1, TicketTokens: 2000, TicketUSD: 2, DailyTokens: 3000, DailyUSD: 3}
	tests := []struct {
		name string
		a    board.AgentSettings
		want heartbeat.Limits
	}{
		{"no project caps keeps the config", board.AgentSettings{}, cfg},
		{"every cap overridden", board.AgentSettings{RunTokens: 10, RunBudgetUSD: 0.1, TicketTokens: 20, BudgetUSD: 0.2, DailyTokens: 30, DailyBudgetUSD: 0.3},
			heartbeat.Limits{RunTokens: 10, RunUSD: 0.1, TicketTokens: 20, TicketUSD: 0.2, DailyTokens: 30, DailyUSD: 0.3}},
		{"some overridden", board.AgentSettings{BudgetUSD: 9, DailyTokens: 99},
			heartbeat.Limits{RunTokens: 1000, RunUSD: 1, TicketTokens: 2000, TicketUSD: 9, DailyTokens: 99, DailyUSD: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cfg.Of(tt.a); got != tt.want {
				t.Errorf("Of = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// spend records a finished run of tk that used the given tokens and cost.
func (e *env) spend(tk board.Ticket, tokens int64, cost float64) {
	e.t.Helper()
	ctx := context.Background()
	r, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskImplement})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.db.FinishRun(ctx, board.Run{ID: r.ID, Status: board.RunCompleted, Usage: board.Usage{InputTokens: tokens, CostUSD: cost}}); err != nil {
		e.t.Fatal(err)
	}
}

// TestBeat_BudgetIsTheLeastCap checks that a run gets the least of its own
// cap and what is left of the ticket's and the project's day.
func TestBeat_BudgetIsTheLeastCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limits heartbeat.Limits
		agent  board.AgentSettings
		want   heartbeat.Budget
	}{
		{"no caps", heartbeat.Limits{}, board.AgentSettings{}, heartbeat.Budget{}},
		{"run cap only", heartbeat.Limits{RunTokens: 5000, RunUSD: 0.5}, board.AgentSettings{}, heartbeat.Budget{USD: 0.5, Tokens: 5000}},
		// The ticket has spent 1200 tokens and $0.30; the other ticket of
		// the project 800 tokens and $0.20 today.
		{"ticket left is less", heartbeat.Limits{RunTokens: 5000, RunUSD: 0.5, TicketTokens: 2000, TicketUSD: 0.4}, board.AgentSettings{},
			heartbeat.Budget{USD: 0.1, Tokens: 800}},
		{"day left is less", heartbeat.Limits{RunTokens: 5000, DailyTokens: 2500, DailyUSD: 0.6}, board.AgentSettings{},
			heartbeat.Budget{USD: 0.1, Tokens: 500}},
		{"project overrides config", heartbeat.Limits{TicketTokens: 2000}, board.AgentSettings{TicketTokens: 100000, RunTokens: 7000},
			heartbeat.Budget{Tokens: 7000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.opts.Limits = tt.limits
			e.project("demo", func(p *board.Project) { p.Agent = tt.agent })
			tk := e.ticket("demo", "Work", board.InProgress)
			other := e.ticket("demo", "Other", board.Backlog)
			e.spend(tk, 1200, 0.3)
			e.spend(other, 800, 0.2)
			e.beat()
			jobs := e.runner.calls()
			if len(jobs) != 1 {
				t.Fatalf("%d runs, want 1", len(jobs))
			}
			got := jobs[0].Budget
			if got.Tokens != tt.want.Tokens || got.USD < tt.want.USD-1e-9 || got.USD > tt.want.USD+1e-9 {
				t.Errorf("budget = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestBeat_RunCapLeavesStatus stops a run at its own cap: the ticket is
// not blocked, and a status comment says what was spent and how to raise
// the cap.
func TestBeat_RunCapLeavesStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.Limits = heartbeat.Limits{RunTokens: 1000}
	e.project("demo", nil)
	tk := e.ticket("demo", "Loop", board.InProgress)
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		return heartbeat.Outcome{Status: board.RunBudgetExceeded, Usage: board.Usage{InputTokens: 1100, OutputTokens: 100, CostUSD: 0.01}}, nil
	}
	rep := e.beat()
	if rep.Runs[0].Status != board.RunBudgetExceeded {
		t.Fatalf("run = %+v", rep.Runs[0])
	}
	got := e.get(tk.Ref())
	cs := e.comments(tk.Ref())
	if got.SubState != "" || len(cs) != 1 || cs[0].Kind != board.KindStatus {
		t.Fatalf("sub-state %q, comments %+v", got.SubState, cs)
	}
	for _, want := range []string{
		"this run's budget is used up (1200 tokens spent of 1000 tokens)",
		"`bonsai project edit demo --run-tokens <N>`",
		"`bonsai config set budget.runTokens <N>`",
		"This run used 1200 tokens",
		"The next beat continues",
	} {
		if !strings.Contains(cs[0].Content, want) {
			t.Errorf("comment lacks %q:\n%s", want, cs[0].Content)
		}
	}
	if r := e.runs(tk.Ref())[0]; r.InputTokens != 1100 || r.OutputTokens != 100 {
		t.Errorf("run record = %+v", r)
	}
}

// TestBeat_TicketTokenCapBlocks stops at the ticket's token cap: the
// ticket asks a person to raise it, naming both caps it crossed.
func TestBeat_TicketTokenCapBlocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.Limits = heartbeat.Limits{RunUSD: 0.05}
	e.project("demo", func(p *board.Project) { p.Agent.TicketTokens = 3000 })
	tk := e.ticket("demo", "Costly", board.InProgress)
	e.spend(tk, 2000, 0)
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		if job.Budget.Tokens != 1000 || job.Budget.USD != 0.05 {
			t.Errorf("budget = %+v, want 1000 tokens and $0.05", job.Budget)
		}
		return heartbeat.Outcome{Status: board.RunBudgetExceeded, Usage: board.Usage{InputTokens: 1500, CostUSD: 0.06}}, nil
	}
	e.beat()
	got := e.get(tk.Ref())
	cs := e.comments(tk.Ref())
	if got.SubState != board.SubBlocked || len(cs) != 1 || cs[0].Kind != board.KindQuestion {
		t.Fatalf("sub-state %q, comments %+v", got.SubState, cs)
	}
	for _, want := range []string{
		"This run's budget is used up ($0.06 spent of $0.05)",
		"This ticket's budget is used up (3500 tokens spent of 3000 tokens)",
		"`bonsai project edit demo --ticket-tokens <N>`",
		"The ticket has used 3500 tokens",
		"reply here",
	} {
		if !strings.Contains(cs[0].Content, want) {
			t.Errorf("comment lacks %q:\n%s", want, cs[0].Content)
		}
	}
}

// TestBeat_DailyCapWaitsForMidnight spends a project's daily budget: the
// next beats skip its picks, with the reason, and make no run until the
// day is over.
func TestBeat_DailyCapWaitsForMidnight(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The store stamps runs with the real clock, so the beat's clock is
	// real too, until it jumps to the next day.
	var tomorrow time.Time
	e.opts.Now = func() time.Time {
		if !tomorrow.IsZero() {
			return tomorrow
		}
		return time.Now()
	}
	e.opts.Limits = heartbeat.Limits{DailyUSD: 0.10}
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.InProgress)
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		return heartbeat.Outcome{Status: board.RunBudgetExceeded, Usage: board.Usage{OutputTokens: 10, CostUSD: 0.12}}, nil
	}
	e.beat()
	cs := e.comments(tk.Ref())
	if len(cs) != 1 || cs[0].Kind != board.KindStatus || !strings.Contains(cs[0].Content, "the project's daily budget is used up ($0.12 spent of $0.10)") ||
		!strings.Contains(cs[0].Content, "--daily-budget <USD>") || !strings.Contains(cs[0].Content, "wait until midnight") {
		t.Fatalf("comments %+v", cs)
	}
	if e.get(tk.Ref()).SubState != "" {
		t.Error("a daily cap blocked the ticket")
	}

	rep := e.beat()
	if n := len(e.runner.calls()); n != 1 {
		t.Errorf("%d runs after the daily budget was spent, want 1", n)
	}
	if len(rep.Runs) != 1 || !strings.Contains(rep.Runs[0].Skipped, "daily budget is used up") {
		t.Errorf("second beat = %+v", rep.Runs)
	}
	h, _ := heartbeat.New(e.opts)
	plans, err := h.Plan(context.Background())
	if err != nil || len(plans) != 1 || !strings.Contains(plans[0].Blocker, "resets at midnight") {
		t.Errorf("plan = %+v, %v", plans, err)
	}

	tomorrow = heartbeat.StartOfDay(time.Now()).Add(25 * time.Hour)
	e.runner.run = nil
	e.beat()
	if n := len(e.runner.calls()); n != 2 {
		t.Errorf("%d runs the next day, want 2", n)
	}
}
