package heartbeat_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/land"
	"github.com/bonsai-run/bonsai/internal/store"
)

// threeWays: two engines, two models.
var threeWays = []board.VariantSpec{
	{Engine: board.EngineBonsai, Model: "fake/one"},
	{Engine: board.EngineBonsai, Model: "fake/two"},
	{Engine: board.EngineCodex, Model: "fake/one"},
}

// variantJob is what a variant's run was given.
type variantJob struct {
	ref    board.Ref
	engine board.Engine
	model  string
	root   string
	budget float64
}

// variantsEnv is an env whose project demo lands by merge and whose
// ticket runs three ways; each run writes its model into the README,
// commits and moves its ticket to VERIFICATION.
func variantsEnv(t *testing.T, edit func(p *board.Project)) (*env, board.Ticket, []board.Variant, func() []variantJob) {
	e := newEnv(t)
	e.opts.MaxConcurrent = 3
	e.project("demo", func(p *board.Project) {
		p.Agent.Land = board.LandMerge
		if edit != nil {
			edit(p)
		}
	})
	tk := e.ticket("demo", "Greet", board.InProgress, "the readme greets")
	vs, err := heartbeat.CreateVariants(context.Background(), e.db, heartbeat.VariantRequest{Ref: tk.Ref(), Specs: threeWays,
		MaxConcurrent: 3, Limits: heartbeat.Limits{}, Now: time.Now(), Actor: board.Human, Author: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var jobs []variantJob
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		mu.Lock()
		jobs = append(jobs, variantJob{job.Ticket.Ref(), job.Project.Agent.Engine, job.Model, job.Workspace.Root, job.Brief.Budget.USD})
		mu.Unlock()
		shell(t, ctx, job, fmt.Sprintf("echo 'hello from %s %s (%s)' > README.md && git commit -q -am greet", job.Project.Agent.Engine, job.Model, job.Ticket.Ref()))
		crit := []map[string]string{{"criterion": "the readme greets", "evidence": "it says hello from " + job.Model}}
		if r := call(t, ctx, job, "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": crit}); r.IsError {
			t.Errorf("%s: move to VERIFICATION: %s", job.Ticket.Ref(), r.Text())
		}
		return heartbeat.Outcome{Status: board.RunCompleted, Usage: board.Usage{InputTokens: 100, CostUSD: 0.01}}, nil
	}
	return e, tk, vs, func() []variantJob {
		mu.Lock()
		defer mu.Unlock()
		return append([]variantJob(nil), jobs...)
	}
}

// TestBeat_VariantsBestOfThree: Run now on a ticket run three ways (two
// engines, two models) runs its three variants at once, each in its own
// worktree and branch with its engine and model, and moves the ticket to
// VERIFICATION once all three are there. Approving variant 2 lands only
// it: the ticket is DONE with its landing, the other two branches are
// deleted from the clone and their worktrees removed. Nothing runs again.
func TestBeat_VariantsBestOfThree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, tk, vs, jobs := variantsEnv(t, nil)
	e.opts.Ticket = tk.Ref()
	rep := e.beat()
	if len(rep.Runs) != 3 {
		t.Fatalf("beat ran %d tickets, want the 3 variants: %+v", len(rep.Runs), rep.Runs)
	}
	roots := map[string]bool{}
	for _, j := range jobs() {
		roots[j.root] = true
		v := variantOf(t, vs, j.ref)
		if j.engine != v.Engine || j.model != v.Model {
			t.Errorf("%s ran %s %s, want %s", j.ref, j.engine, j.model, v.Spec())
		}
		runs := e.runs(j.ref)
		if len(runs) != 1 || runs[0].Model != v.Model || runs[0].Engine != v.Engine.String() {
			t.Errorf("%s runs = %+v, want one of %s", j.ref, runs, v.Spec())
		}
	}
	if len(roots) != 3 {
		t.Errorf("the variants ran in %d worktrees, want 3", len(roots))
	}
	if got := e.get(tk.Ref()); got.State != board.Verification {
		t.Fatalf("%s is %s after its variants, want VERIFICATION", tk.Ref(), got.State)
	}
	clone := e.ws.ClonePath("demo")
	branches := strings.Fields(gittest.Run(t, clone, "for-each-ref", "--format=%(refname:short)", "refs/heads/bonsai/"))
	if len(branches) != 3 {
		t.Fatalf("clone branches = %q, want the 3 variants'", branches)
	}
	p, _ := e.db.Project(ctx, "demo")
	if pushed := strings.Fields(gittest.Run(t, p.Repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/bonsai/")); len(pushed) != 3 {
		t.Fatalf("the repository's branches = %q, want the 3 variants' pushed", pushed)
	}
	// Someone pushes to variant 3's branch on the repository: closing it
	// keeps their commit there and says so.
	v3 := e.get(vs[2].Ref).Branch
	other := gittest.Run(t, p.Repo, "commit-tree", "-m", "someone else's", "-p", "refs/heads/"+v3, "refs/heads/"+v3+"^{tree}")
	gittest.Run(t, p.Repo, "update-ref", "refs/heads/"+v3, other)

	lander := land.New(land.Options{Store: e.db, Git: e.ws})
	person := land.Person{Name: "Pat", Email: "pat@example.com"}
	if _, err := lander.Approve(ctx, land.Approval{Ref: tk.Ref(), Person: person}); board.ErrorCode(err) != board.EREFUSED ||
		!strings.Contains(err.Error(), "approve one of them") {
		t.Errorf("approving the ticket itself = %v, want refused: approve a variant", err)
	}
	r, err := lander.Approve(ctx, land.Approval{Ref: vs[1].Ref, Person: person})
	if err != nil || r.Outcome != land.Landed {
		t.Fatalf("approve variant 2 = %+v, %v", r, err)
	}
	repo := e.get(tk.Ref())
	if repo.State != board.Done {
		t.Errorf("%s is %s after approving variant 2, want DONE", tk.Ref(), repo.State)
	}
	// Variant 1's branch is deleted from the repository too; variant 3's,
	// which moved since, is kept, and the result says so.
	pushed := gittest.Run(t, p.Repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/bonsai/")
	if strings.Contains(pushed, e.get(vs[0].Ref).Branch) || !strings.Contains(pushed, v3) {
		t.Errorf("the repository's branches after approving = %q, want variant 1's deleted and variant 3's (moved since) kept", pushed)
	}
	if !strings.Contains(r.Message, "closing failed for "+vs[2].Ref.String()) || !strings.Contains(r.Message, "it moved since Bonsai pushed it") {
		t.Errorf("approval says %q, want it to say variant 3's branch was kept because it moved", r.Message)
	}
	if got := gittest.Run(t, p.Repo, "show", "main:README.md"); got != fmt.Sprintf("hello from bonsai fake/two (%s)", vs[1].Ref) {
		t.Errorf("main's README = %q, want variant 2's", got)
	}
	if l, err := e.db.Landing(ctx, tk.Ref()); err != nil || l.Commit != r.Landing.Commit {
		t.Errorf("landing of %s = %+v, %v; want variant 2's %s", tk.Ref(), l, err, r.Landing.Commit)
	}
	// The work lands as the ticket compared, not as the variant's own
	// ticket: history names demo#1 and says which variant it was.
	msg := gittest.Run(t, p.Repo, "log", "-1", "--format=%B", r.Landing.Commit)
	if !strings.HasPrefix(msg, fmt.Sprintf("Greet (%s)", tk.Ref())) || !strings.Contains(msg, "Variant: "+vs[1].Ref.String()) {
		t.Errorf("the landed commit's message is %q: want the ticket's title and reference, and the variant named", msg)
	}
	after, _ := e.db.Variants(ctx, tk.Ref())
	left := strings.Fields(gittest.Run(t, clone, "for-each-ref", "--format=%(refname:short)", "refs/heads/bonsai/"))
	if len(left) != 1 || left[0] != e.get(vs[1].Ref).Branch {
		t.Errorf("clone branches after approving = %q, want variant 2's only", left)
	}
	for _, v := range after {
		want := board.VariantClosed
		if v.Number == 2 {
			want = board.VariantChosen
		}
		if v.State != want {
			t.Errorf("variant %d is %s, want %s", v.Number, v.State, want)
		}
		if _, err := os.Stat(e.ws.WorktreePath("demo", v.Ref.Number)); v.Number != 2 && !os.IsNotExist(err) {
			t.Errorf("variant %d's worktree is still there (%v)", v.Number, err)
		}
	}
	e.opts.Ticket = board.Ref{}
	if rep := e.beat(); len(rep.Runs) != 0 {
		t.Errorf("a beat after the approval ran %+v, want nothing", rep.Runs)
	}
	if n := len(jobs()); n != 3 {
		t.Errorf("%d runs in all, want 3: nothing runs twice", n)
	}
}

func variantOf(t *testing.T, vs []board.Variant, ref board.Ref) board.Variant {
	t.Helper()
	for _, v := range vs {
		if v.Ref == ref {
			return v
		}
	}
	t.Fatalf("%s is no variant of %+v", ref, vs)
	return board.Variant{}
}

// TestBeat_VariantsShareTheTicketBudget: a ticket capped at $0.30 run
// three ways gives each variant's run a budget of $0.10.
func TestBeat_VariantsShareTheTicketBudget(t *testing.T) {
	t.Parallel()
	e, tk, vs, jobs := variantsEnv(t, func(p *board.Project) { p.Agent.BudgetUSD = 0.3 })
	for _, v := range vs {
		if v.BudgetUSD < 0.0999 || v.BudgetUSD > 0.1001 {
			t.Errorf("variant %d's share = $%f, want $0.10", v.Number, v.BudgetUSD)
		}
	}
	e.opts.Ticket = tk.Ref()
	e.beat()
	for _, j := range jobs() {
		if j.budget < 0.0999 || j.budget > 0.1001 {
			t.Errorf("%s ran with a budget of $%f, want its share $0.10", j.ref, j.budget)
		}
	}
}

// TestBeat_VariantsReturnOne: returning variant 1 with feedback makes its
// branch the ticket's, closes the others, and the ticket's next run works
// on that branch with variant 1's engine and model.
func TestBeat_VariantsReturnOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, tk, vs, jobs := variantsEnv(t, nil)
	e.opts.Ticket = tk.Ref()
	e.beat()
	lander := land.New(land.Options{Store: e.db, Git: e.ws})
	chosen := e.get(vs[0].Ref).Branch
	got, err := lander.Return(ctx, tk.Ref(), 1, "pat", "Say it louder.")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != board.InProgress || got.SubState != board.SubReturned || got.Branch != chosen {
		t.Errorf("returned ticket = %s/%s on %q, want IN_PROGRESS/returned on %q", got.State, got.SubState, got.Branch, chosen)
	}
	left := strings.Fields(gittest.Run(t, e.ws.ClonePath("demo"), "for-each-ref", "--format=%(refname:short)", "refs/heads/bonsai/"))
	if len(left) != 1 || left[0] != chosen {
		t.Errorf("clone branches = %q, want variant 1's only", left)
	}
	e.opts.Ticket = board.Ref{}
	rep := e.beat()
	if len(rep.Runs) != 1 || rep.Runs[0].Ticket != tk.Ref().String() || rep.Runs[0].Task != board.TaskFeedback {
		t.Fatalf("beat after the return = %+v, want %s's feedback run", rep.Runs, tk.Ref())
	}
	all := jobs()
	last := all[len(all)-1]
	if last.engine != vs[0].Engine || last.model != vs[0].Model || filepath.Base(last.root) != fmt.Sprint(tk.Number) {
		t.Errorf("the ticket's run = %+v, want %s in its own worktree", last, vs[0].Spec())
	}
	if b := gittest.Run(t, last.root, "rev-parse", "--abbrev-ref", "HEAD"); b != chosen {
		t.Errorf("the ticket's worktree is on %q, want %q", b, chosen)
	}
}

// TestCreateVariants_Refused: more variants than agents may run at once,
// a share of the ticket's budget too small to run, a ticket whose
// variants are in flight and an archived project are refused with the
// reason; none creates a ticket.
func TestCreateVariants_Refused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	e.project("demo", func(p *board.Project) { p.Agent.BudgetUSD = 0.02 })
	e.project("gone", nil)
	tk := e.ticket("demo", "Greet", board.InProgress)
	old := e.ticket("gone", "Old", board.InProgress)
	if _, err := e.db.ArchiveProject(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	create := func(ref board.Ref, max int, specs []board.VariantSpec) error {
		_, err := heartbeat.CreateVariants(ctx, e.db, heartbeat.VariantRequest{Ref: ref, Specs: specs, MaxConcurrent: max,
			Now: time.Now(), Actor: board.Human, Author: "ann"})
		return err
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"over maxConcurrentAgents", create(tk.Ref(), 2, threeWays), "heartbeat.maxConcurrentAgents is 2"},
		{"over the ticket's budget", create(tk.Ref(), 3, threeWays), "more than the budget allows: the ticket's budget has $0.02 left"},
		{"archived project", create(old.Ref(), 3, threeWays), "is archived"},
	} {
		if board.ErrorCode(c.err) != board.EREFUSED || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want refused saying %q", c.name, c.err, c.want)
		}
	}
	if err := create(tk.Ref(), 3, threeWays[:2]); err != nil {
		t.Fatalf("two variants of $0.01 each: %v", err)
	}
	if err := create(tk.Ref(), 3, threeWays[:2]); board.ErrorCode(err) != board.EREFUSED || !strings.Contains(err.Error(), "still in flight") {
		t.Errorf("a second best of N while the first is in flight: %v, want refused", err)
	}
	if n, _ := e.db.CountTickets(ctx, store.TicketFilter{ProjectSlug: "demo"}); n != 3 {
		t.Errorf("demo has %d tickets, want 3: the ticket and the one round's two variants", n)
	}
}

// missingEngine is a runner on which one engine is not installed.
type missingEngine struct {
	*fakeRunner
	missing board.Engine
}

func (m missingEngine) ReadyFor(p board.Project, model string) error {
	if p.Agent.Engine == m.missing {
		return fmt.Errorf("the %s engine needs the %s command, which is not installed", p.Agent.Engine, p.Agent.Engine)
	}
	return nil
}

// TestBeat_VariantEngineNotInstalled: a variant whose engine is not
// installed is skipped with the reason on the ticket and on the variant,
// fails for good (no later beat tries it again) and charges nothing; the
// others run, and the ticket reaches VERIFICATION with them.
func TestBeat_VariantEngineNotInstalled(t *testing.T) {
	t.Parallel()
	e, tk, vs, jobs := variantsEnv(t, nil)
	e.opts.Runner = missingEngine{e.runner, board.EngineCodex}
	e.opts.Ticket = tk.Ref()
	rep := e.beat()
	var skipped []string
	for _, r := range rep.Runs {
		if r.Skipped != "" {
			skipped = append(skipped, r.Ticket+": "+r.Skipped)
		}
	}
	if len(jobs()) != 2 || len(skipped) != 1 || !strings.Contains(skipped[0], "codex engine needs the codex command") {
		t.Fatalf("beat ran %d variants and skipped %q, want 2 and the codex one", len(jobs()), skipped)
	}
	after, _ := e.db.Variants(context.Background(), tk.Ref())
	if after[2].State != board.VariantFailed || !strings.Contains(after[2].Reason, "not installed") {
		t.Errorf("variant 3 = %+v, want failed with the reason", after[2])
	}
	if len(e.runs(vs[2].Ref)) != 0 {
		t.Errorf("the codex variant has runs: %+v", e.runs(vs[2].Ref))
	}
	said := false
	for _, c := range e.comments(tk.Ref()) {
		said = said || strings.Contains(c.Content, "Variant 3 (`codex:fake/one`") && strings.Contains(c.Content, "not installed")
	}
	if !said {
		t.Errorf("%s does not say why variant 3 was skipped: %+v", tk.Ref(), e.comments(tk.Ref()))
	}
	if got := e.get(tk.Ref()); got.State != board.Verification {
		t.Errorf("%s is %s, want VERIFICATION with its two variants", tk.Ref(), got.State)
	}
	e.opts.Ticket = board.Ref{}
	if rep := e.beat(); len(rep.Runs) != 0 {
		t.Errorf("the next beat = %+v, want nothing: the failed variant is not tried again", rep.Runs)
	}
}
