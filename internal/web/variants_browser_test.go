package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/land"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// variantWork is what one variant's agent did in the test: the file it
// wrote, its evidence, and what its run consumed.
type variantWork struct {
	file, evidence string
	usage          board.Usage
	turns          int
}

// variantsEnv is a project demo landing by merge on a real repository,
// and its ticket demo#1 run three ways (two engines, two models), each
// variant's branch committed, recorded for review and in VERIFICATION as
// a heartbeat leaves them, with its evidence and its run; the server
// shows diffs and lands through a real Lander.
func variantsEnv(t *testing.T, work []variantWork) (*env, string, *workspace.Provider, []board.Variant) {
	t.Helper()
	ctx := context.Background()
	e := newEnv(t)
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), nil)
	p, err := e.db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: repo, DefaultBranch: "main", Active: true,
		Agent: board.AgentSettings{Land: board.LandMerge}})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(workspace.Options{Projects: e.dir.Projects(), Worktrees: e.dir.Worktrees(),
		Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) }})
	if err != nil {
		t.Fatal(err)
	}
	tk := e.ticket(t, "demo", "Greet the world", board.InProgress)
	specs := []board.VariantSpec{{Model: "fake/one"}, {Model: "fake/two"}, {Engine: board.EngineClaudeCode, Model: "fake/one"}}
	vs, err := e.db.CreateVariants(ctx, store.NewVariants{Ticket: tk.Ref(), Specs: specs, Actor: board.Human})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		doVariantWork(t, e, ws, p, v, work[i])
	}
	if _, err := e.db.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.Verification, Actor: board.System}, "bonsai"); err != nil {
		t.Fatal(err)
	}
	l := land.New(land.Options{Store: e.db, Git: ws})
	e.srv.opts.Approve = func(ctx context.Context, ref board.Ref, note string) (board.Ticket, error) {
		r, err := l.Approve(ctx, land.Approval{Ref: ref, Author: "tester", Person: land.Person{Name: "Tess Ter", Email: "tess@example.com"}, Note: note})
		return r.Ticket, err
	}
	e.srv.opts.Diff = func(ctx context.Context, p board.Project, t board.Ticket) (string, error) {
		rv, err := e.db.Review(ctx, t.Ref())
		if err != nil && board.ErrorCode(err) != board.ENOTFOUND {
			return "", err
		}
		return ws.Diff(ctx, p, t, workspace.Review{Base: rv.Base, Tip: rv.Tip})
	}
	return e, repo, ws, vs
}

// doVariantWork does what variant v's agent and the heartbeat would: a
// commit on its branch, its run, its evidence, VERIFICATION and the review
// record.
func doVariantWork(t *testing.T, e *env, ws *workspace.Provider, p board.Project, v board.Variant, w variantWork) {
	t.Helper()
	ctx := context.Background()
	vt, err := e.db.Ticket(ctx, v.Ref)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := ws.Prepare(ctx, p, vt)
	if err != nil {
		t.Fatal(err)
	}
	wt.Close()
	if err := os.WriteFile(filepath.Join(wt.Root, w.file), []byte("hello from "+v.Model+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, wt.Root, "add", ".")
	gittest.Run(t, wt.Root, "commit", "-q", "-m", "greet")
	if _, err := e.db.UpdateTicket(ctx, v.Ref, board.TicketPatch{Branch: &wt.Branch}, board.System); err != nil {
		t.Fatal(err)
	}
	run, err := e.db.StartRun(ctx, board.Run{TicketID: vt.ID, Task: board.TaskImplement, Model: v.Model, Engine: v.Engine.String()})
	if err != nil {
		t.Fatal(err)
	}
	run.Status, run.Usage, run.Turns = board.RunCompleted, w.usage, w.turns
	if _, err := e.db.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.AddComment(ctx, v.Ref, board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindCompletion,
		Content: "Ready for review.\n\n1. **it works**\n   " + w.evidence + "\n\nChecks: `go test ./...` passed."}); err != nil {
		t.Fatal(err)
	}
	e.toVerification(t, v.Ref)
	rv, err := ws.Review(ctx, p, v.Ref.Number, wt.Branch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.SetReview(ctx, board.Review{Ref: v.Ref, Base: rv.Base, Tip: rv.Tip}); err != nil {
		t.Fatal(err)
	}
}

// TestBrowser_VariantsCompareAndApprove: a ticket run three ways shows
// its variants on its page; the comparison page shows them side by side
// (diff stats and diffs, evidence, tokens, $, turns); approving variant 2
// there lands only it: the ticket is DONE, main has its file and not the
// others', and the other two branches are gone from the clone.
func TestBrowser_VariantsCompareAndApprove(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	work := []variantWork{
		{"one.txt", "one.txt says hello", board.Usage{InputTokens: 1000, OutputTokens: 100, CostUSD: 0.0123}, 3},
		{"two.txt", "two.txt says hello", board.Usage{InputTokens: 2000, OutputTokens: 200, CostUSD: 0.0456}, 5},
		{"three.txt", "three.txt says hello", board.Usage{InputTokens: 3000, OutputTokens: 300, CostUSD: 0.0789}, 7},
	}
	e, repo, ws, vs := variantsEnv(t, work)
	ctx := newBrowser(t)
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))
	steps(t, ctx, "open the ticket", chromedp.Navigate(e.ts.URL+"/p/demo/1"), chromedp.WaitVisible(chromedp.CSS("#variants-box")))
	steps(t, ctx, "compare the variants", click("#compare-variants"))
	waitFor(t, ctx, "the comparison shows three variants", `document.querySelectorAll("#variants .variant").length === 3`)
	columns := eval[[]string](t, ctx, `[...document.querySelectorAll("#variants .variant")].map(v =>
		[v.querySelector(".variant-spec").textContent, v.querySelector(".variant-diffstat").textContent.trim(),
		 v.querySelector(".variant-tokens").textContent, v.querySelector(".variant-cost").textContent.trim(),
		 v.querySelector(".variant-turns").textContent, v.querySelector(".variant-evidence").textContent.includes(v.dataset.x || ""),
		 v.querySelector(".variant-evidence").textContent.trim().split("\n").join(" ")].join(" | "))`)
	for i, w := range work {
		want := fmt.Sprintf("%s | 1 file, +1 −0 | %d | $%.4f", vs[i].Spec(), w.usage.Tokens(), w.usage.CostUSD)
		if !strings.HasPrefix(columns[i], want) || !strings.Contains(columns[i], w.evidence) || !strings.Contains(columns[i], fmt.Sprintf("| %d |", w.turns)) {
			t.Errorf("column %d = %q, want %q…, %d turns and its evidence", i+1, columns[i], want, w.turns)
		}
	}
	// Side by side: the three columns share one row.
	if tops := eval[[]float64](t, ctx, `[...document.querySelectorAll("#variants .variant")].map(v => v.getBoundingClientRect().top)`); tops[0] != tops[1] || tops[1] != tops[2] {
		t.Errorf("the variants' tops are %v, want one row", tops)
	}
	if got := eval[string](t, ctx, `document.querySelector("#variant-2 pre.diff").textContent`); !strings.Contains(got, "+hello from fake/two") {
		t.Errorf("variant 2's diff = %q", got)
	}
	screenshot(t, ctx, "variants-compare")

	steps(t, ctx, "approve variant 2", click("#approve-variant-2"))
	waitFor(t, ctx, "the ticket page shows it landed", `location.pathname === "/p/demo/1" && document.getElementById("landed") !== null`)
	if got := e.get2(t, board.Ref{Project: "demo", Number: 1}); got.State != board.Done {
		t.Errorf("demo#1 is %s, want DONE", got.State)
	}
	files := strings.Fields(gittest.Run(t, repo, "ls-tree", "--name-only", "main"))
	if !contains(files, "two.txt") || contains(files, "one.txt") || contains(files, "three.txt") {
		t.Errorf("main has %q, want two.txt and neither one.txt nor three.txt", files)
	}
	left := strings.Fields(gittest.Run(t, ws.ClonePath("demo"), "for-each-ref", "--format=%(refname:short)", "refs/heads/bonsai/"))
	if len(left) != 1 || !strings.HasPrefix(left[0], fmt.Sprintf("bonsai/demo/%d-", vs[1].Ref.Number)) {
		t.Errorf("clone branches = %q, want variant 2's only", left)
	}
	screenshot(t, ctx, "variants-approved")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// gitFiles lists the files of repo's main.
func gitFiles(t *testing.T, repo string) string {
	t.Helper()
	return gittest.Run(t, repo, "ls-tree", "--name-only", "main")
}
