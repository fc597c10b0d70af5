package web

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/land"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// landingEnv is a server whose approvals go through a real Lander, with a
// project on a real repository and a ticket whose agent committed work.
func landingEnv(t *testing.T, mode board.LandMode) (*env, string, board.Ticket) {
	t.Helper()
	e := newEnv(t)
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), nil)
	ctx := context.Background()
	p, err := e.db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: repo, DefaultBranch: "main", Active: true,
		Agent: board.AgentSettings{Land: mode}})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(workspace.Options{Projects: e.dir.Projects(), Worktrees: e.dir.Worktrees(),
		Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) }})
	if err != nil {
		t.Fatal(err)
	}
	tk := e.ticket(t, "demo", "Add greeting", board.InProgress)
	w, err := ws.Prepare(ctx, p, tk)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	os.WriteFile(filepath.Join(w.Root, "hello.txt"), []byte("hello\n"), 0o644)
	gittest.Run(t, w.Root, "add", ".")
	gittest.Run(t, w.Root, "commit", "-q", "-m", "greet")
	if tk, err = e.db.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{Branch: &w.Branch}, board.System); err != nil {
		t.Fatal(err)
	}
	e.toVerification(t, tk.Ref())
	// Recorded for review, as the heartbeat does at VERIFICATION.
	rv, err := ws.Review(ctx, p, tk.Number, w.Branch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.SetReview(ctx, board.Review{Ref: tk.Ref(), Base: rv.Base, Tip: rv.Tip}); err != nil {
		t.Fatal(err)
	}
	l := land.New(land.Options{Store: e.db, Git: ws})
	e.srv.opts.Approve = func(ctx context.Context, ref board.Ref, note string) (board.Ticket, error) {
		r, err := l.Approve(ctx, land.Approval{Ref: ref, Author: "tester", Person: land.Person{Name: "Tess Ter", Email: "tess@example.com"}, Note: note})
		return r.Ticket, err
	}
	return e, repo, tk
}

func TestLanding_FailureThenMoveToDoneLands(t *testing.T) {
	t.Parallel()
	e, repo, _ := landingEnv(t, board.LandMerge)
	os.WriteFile(filepath.Join(repo, "README.md"), []byte("edited, not committed\n"), 0o644)

	// The accept button: the work does not land, the page says why.
	c := e.browser(t)
	e.post(t, c, "/p/demo/1/approve", nil)
	r := e.get(t, c, "/p/demo/1")
	wantBody(t, r, `id="landing-error"`, "The work did not land.", "uncommitted changes", "bonsai ticket land demo#1")
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/approve", "")
	wantStatus(t, r, http.StatusConflict)
	wantBody(t, r, "commit or stash them there")
	r = e.api(t, "GET", "/api/projects/demo/tickets/1", "")
	wantBody(t, r, `"state": "VERIFICATION"`, `"landing": {`, `"error": "`)
	wantBody(t, e.get(t, c, "/p/demo"), `<span class="badge land-failed">landing failed</span>`)

	// Fixed; a move to DONE through the API lands the work.
	gittest.Run(t, repo, "checkout", "--", "README.md")
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/move", `{"state":"DONE"}`)
	wantStatus(t, r, 200)
	wantBody(t, r, `"state": "DONE"`)
	commit := gittest.Run(t, repo, "rev-parse", "main")
	if who := gittest.Run(t, repo, "log", "-1", "--format=%an <%ae>", "main"); who != "Tess Ter <tess@example.com>" {
		t.Errorf("landed by %s", who)
	}
	r = e.get(t, c, "/p/demo/1")
	wantBody(t, r, `id="landed"`, "Landed on <code>main</code> as <code title=\""+commit+"\">"+commit[:12]+"</code>")
	// The card says so too, and no longer that landing failed.
	r = e.get(t, c, "/p/demo")
	wantBody(t, r, `>landed `+commit[:7]+`</span>`)
	if strings.Contains(r.body, "landing failed") {
		t.Errorf("the card still says the landing failed")
	}
}

func TestLanding_NoneModeShowsWhereTheBranchIs(t *testing.T) {
	t.Parallel()
	e, repo, tk := landingEnv(t, board.LandNone)
	c := e.browser(t)
	wantBody(t, e.get(t, c, "/p/demo/1"), `id="merge-hint"`, "<code>git merge "+tk.Branch+"</code>", repo)
	e.post(t, c, "/p/demo/1/approve", nil)
	r := e.api(t, "GET", "/api/projects/demo/tickets/1", "")
	wantBody(t, r, `"state": "DONE"`, `"mode": "none"`, `"mergeHint": "The work is on the branch`)
}
