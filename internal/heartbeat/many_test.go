package heartbeat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/land"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// overlapModel is a scripted model for runs at once: it answers every
// request with a final text, after holding the first ones until hold
// requests are open together (or a generous wait passes, when the
// heartbeat starts fewer at once), and records each request's interval
// and the ticket it is for.
type overlapModel struct {
	hold int

	mu    sync.Mutex
	open  int
	full  chan struct{} // closed once hold requests were open together
	spans []span
}

var ticketRef = regexp.MustCompile(`\b([a-z]+#[0-9]+)\b`)

func newOverlapModel(hold int) *overlapModel {
	return &overlapModel{hold: hold, full: make(chan struct{})}
}

func (m *overlapModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		raw, _ := json.Marshal(req.Messages)
		s := span{ticket: string(ticketRef.Find(raw)), start: time.Now()}
		m.mu.Lock()
		m.open++
		if m.open == m.hold {
			close(m.full)
		}
		m.mu.Unlock()
		select {
		case <-m.full:
		case <-time.After(10 * time.Second):
		case <-ctx.Done():
		}
		s.end = time.Now()
		m.mu.Lock()
		m.open--
		m.spans = append(m.spans, s)
		m.mu.Unlock()
		msg := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("Done for now.")}, StopReason: llm.StopEnd,
			Usage: &llm.Usage{Input: 100, Output: 10, Cost: 0.001}}
		for ev, err := range llmtest.NewModel(llmtest.Turn{Message: msg}).Stream(ctx, req) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// recorded returns the spans recorded since the n-th.
func (m *overlapModel) recorded(from int) []span {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]span(nil), m.spans[from:]...)
}

// withModel makes the env's beats run the real agent loop on model.
func (e *env) withModel(model llm.Model) {
	e.t.Helper()
	runner, err := agentrunner.New(agentrunner.Options{
		Model: func(id string) (llm.Model, llm.Info, error) {
			return model, llm.Info{ID: id, ContextWindow: 200000}, nil
		},
		OpenDir: func(dir string) (executor.Executor, error) { return local.New(dir, local.Options{}) },
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.opts.Runner, e.opts.DefaultModel = runner, "llmtest/scripted"
}

// TestBeat_MaxAgentsRunsThatManyAtOnce: one beat on a project with six
// independent tickets and max-agents 3 runs exactly three of them at once
// (the model holds each request until three are open), each ticket once;
// the next beat runs the other three. The beat's limit is not what stops
// a fourth: it allows ten.
func TestBeat_MaxAgentsRunsThatManyAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.MaxConcurrent = 10
	model := newOverlapModel(3)
	e.withModel(model)
	e.project("many", func(p *board.Project) { p.Agent.MaxAgents = 3 })
	var refs []board.Ref
	for i := range 6 {
		refs = append(refs, e.ticket("many", fmt.Sprintf("Independent change %d", i+1), board.InProgress).Ref())
	}

	first := e.beat()
	spans := model.recorded(0)
	if len(first.Runs) != 3 || len(spans) != 3 {
		t.Fatalf("first beat: %d runs, %d model requests; want 3 and 3: %+v", len(first.Runs), len(spans), first.Runs)
	}
	if n := maxOverlap(spans); n != 3 {
		t.Errorf("%d requests were open at once in the first beat, want 3", n)
	}
	for _, r := range first.Runs {
		if r.Status != board.RunCompleted {
			t.Errorf("run %+v did not complete", r)
		}
	}

	second := e.beat()
	if len(second.Runs) != 3 {
		t.Fatalf("second beat: %d runs, want 3: %+v", len(second.Runs), second.Runs)
	}
	all := model.recorded(0)
	if n := maxOverlap(all); n > 3 {
		t.Errorf("%d requests were open at once, over max-agents 3", n)
	}
	worked := map[string]int{}
	for _, s := range all {
		worked[s.ticket]++
	}
	for _, ref := range refs {
		if worked[ref.String()] != 1 || len(e.runs(ref)) != 1 {
			t.Errorf("%s: %d model requests and %d runs over two beats, want 1 and 1", ref, worked[ref.String()], len(e.runs(ref)))
		}
	}
}

// TestPlan_MaxAgentsInPolicyOrder: the plan of a project with max-agents
// 2 has its two first tickets by the pick policy; one at a time (the
// default) keeps the single pick.
func TestPlan_MaxAgentsInPolicyOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("two", func(p *board.Project) { p.Agent.MaxAgents = 2 })
	e.project("one", nil)
	research := e.ticket("two", "research", board.Research)
	first := e.ticket("two", "first", board.InProgress)
	second := e.ticket("two", "second", board.InProgress)
	e.ticket("one", "a", board.InProgress)
	e.ticket("one", "b", board.InProgress)
	e.humanComment(second.Ref(), "this one first, please")
	h, err := heartbeat.New(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	plans, err := h.Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plans {
		got = append(got, fmt.Sprintf("%s %d %s", p.Ticket.Ref(), p.Rank, p.Task))
	}
	want := []string{"one#1 0 implement", second.Ref().String() + " 0 reply", first.Ref().String() + " 1 implement"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("plans = %q, want %q (research %s last, not planned)", got, want, research.Ref())
	}
}

// TestBeat_MaxAgentsConflictAfterLanding: two tickets of a project with
// max-agents 2 are worked in one beat, both changing the README; the
// first approved lands, the second's branch then conflicts: approving it
// returns it with the conflict, and the next beat plans its conflict
// task.
func TestBeat_MaxAgentsConflictAfterLanding(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	p := e.project("demo", func(p *board.Project) { p.Agent.MaxAgents, p.Agent.Land = 2, board.LandMerge })
	one := e.ticket("demo", "Say one", board.InProgress, "the readme says it")
	two := e.ticket("demo", "Say two", board.InProgress, "the readme says it")
	var mu sync.Mutex
	workers := map[string]bool{}
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		mu.Lock()
		workers[job.Workspace.Root] = true
		mu.Unlock()
		shell(t, ctx, job, fmt.Sprintf("echo 'ticket %d' > README.md && git commit -q -am 'ticket %d'", job.Ticket.Number, job.Ticket.Number))
		crit := []map[string]string{{"criterion": "the readme says it", "evidence": "edited it"}}
		if r := call(t, ctx, job, "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": crit}); r.IsError {
			t.Errorf("%s: move to VERIFICATION: %s", job.Ticket.Ref(), r.Text())
		}
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	rep := e.beat()
	if len(rep.Runs) != 2 || len(workers) != 2 {
		t.Fatalf("beat ran %d tickets in %d worktrees, want 2 and 2: %+v", len(rep.Runs), len(workers), rep.Runs)
	}
	for _, tk := range []board.Ticket{one, two} {
		if got := e.get(tk.Ref()); got.State != board.Verification {
			t.Fatalf("%s is %s, want VERIFICATION", tk.Ref(), got.State)
		}
	}
	lander := land.New(land.Options{Store: e.db, Git: e.ws})
	approve := func(ref board.Ref) land.Result {
		r, err := lander.Approve(ctx, land.Approval{Ref: ref, Person: land.Person{Name: "Pat", Email: "pat@example.com"}})
		if err != nil {
			t.Fatalf("approve %s: %v", ref, err)
		}
		return r
	}
	if r := approve(one.Ref()); r.Outcome != land.Landed {
		t.Fatalf("approve %s = %+v, want landed", one.Ref(), r)
	}
	if r := approve(two.Ref()); r.Outcome != land.Returned {
		t.Fatalf("approve %s after %s landed = %+v, want returned with the conflict", two.Ref(), one.Ref(), r)
	}
	if got := gittest.Run(t, p.Repo, "show", "main:README.md"); got != "ticket 1" {
		t.Errorf("main's README = %q, want ticket 1's", got)
	}
	plans, err := mustHeartbeat(t, e).Plan(ctx)
	if err != nil || len(plans) != 1 || plans[0].Ticket.Number != two.Number || plans[0].Task != board.TaskConflict {
		t.Errorf("plans = %+v, %v; want %s's conflict task", plans, err, two.Ref())
	}
}

// TestBeat_MaxAgentsDailyBudgetBeforeEachStart: with one agent slot, the
// two tickets of a project with max-agents 2 run one after the other in
// one beat; the first spends the project's day, so the second is skipped
// with the reason before it starts: no run, no model request.
func TestBeat_MaxAgentsDailyBudgetBeforeEachStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.MaxConcurrent = 1
	e.project("demo", func(p *board.Project) { p.Agent.MaxAgents, p.Agent.DailyBudgetUSD = 2, 0.05 })
	one := e.ticket("demo", "One", board.InProgress)
	two := e.ticket("demo", "Two", board.InProgress)
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		return heartbeat.Outcome{Status: board.RunCompleted, Usage: board.Usage{InputTokens: 1000, CostUSD: 0.06}}, nil
	}
	rep := e.beat()
	if len(rep.Runs) != 2 || len(e.runner.calls()) != 1 {
		t.Fatalf("beat planned %d tickets and ran %d, want 2 and 1: %+v", len(rep.Runs), len(e.runner.calls()), rep.Runs)
	}
	if got := len(e.runs(one.Ref())); got != 1 {
		t.Errorf("%s has %d runs, want 1", one.Ref(), got)
	}
	if got := len(e.runs(two.Ref())); got != 0 {
		t.Errorf("%s has %d runs, want none: the day was spent before it started", two.Ref(), got)
	}
	skipped := rep.Runs[1]
	if skipped.Ticket != two.Ref().String() || !strings.Contains(skipped.Skipped, "daily budget is used up") {
		t.Errorf("second report = %+v, want %s skipped for the daily budget", skipped, two.Ref())
	}
}

// TestBeat_MaxAgentsShareTheDay: two runs of a project with max-agents 2
// started in one beat are given half of the day's $0.10 each, not the
// whole of it each: together they cannot overspend the day.
func TestBeat_MaxAgentsShareTheDay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", func(p *board.Project) { p.Agent.MaxAgents, p.Agent.DailyBudgetUSD = 2, 0.10 })
	e.ticket("demo", "One", board.InProgress)
	e.ticket("demo", "Two", board.InProgress)
	var mu sync.Mutex
	var budgets []float64
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		mu.Lock()
		budgets = append(budgets, job.Brief.Budget.USD)
		mu.Unlock()
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	if len(budgets) != 2 {
		t.Fatalf("%d runs, want 2", len(budgets))
	}
	for _, b := range budgets {
		if b <= 0 || b > 0.05+1e-9 {
			t.Errorf("run budgets = %v; want each at most half the day's $0.10", budgets)
		}
	}
}
