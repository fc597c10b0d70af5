package web

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/forgesync"
	"github.com/bonsai-run/bonsai/internal/gittest"
)

// TestBrowser_PullRequest shows a ticket's pull request, opened and
// followed on a fake GitHub, on its card and its page, and the card
// following it live when it is merged on the forge.
func TestBrowser_PullRequest(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	bg := context.Background()
	e := newEnv(t)
	gh := forgetest.New(t, forge.GitHub)
	remote := gh.GitRepo(t, "acme", "widget", nil)
	p, err := e.db.CreateProject(bg, board.Project{Slug: "demo", Name: "Demo", Repo: remote, DefaultBranch: "main", Active: true,
		Agent: board.AgentSettings{Land: board.LandPR}})
	if err != nil {
		t.Fatal(err)
	}
	tk := e.ticket(t, "demo", "Greet the world", board.InProgress)
	branch := "bonsai/1-greet"
	gittest.Run(t, gh.BareDir("acme", "widget"), "branch", branch, "main")
	if tk, err = e.db.UpdateTicket(bg, tk.Ref(), board.TicketPatch{Branch: &branch}, board.System); err != nil {
		t.Fatal(err)
	}
	e.toVerification(t, tk.Ref())
	fs := forgesync.New(forgesync.Options{Board: e.db, Hosts: map[string]forge.Host{gh.Host(): {Kind: forge.GitHub}},
		Getenv: func(k string) string {
			if k == "GITHUB_TOKEN" {
				return forgetest.Token
			}
			return ""
		}})
	if err := fs.Publish(bg, p, e.get2(t, tk.Ref())); err != nil {
		t.Fatal(err)
	}
	pr := gh.PR("acme", "widget", 1)
	gh.SetCheck("acme", "widget", pr.HeadSHA, "unit-tests", forge.ChecksFailure, "2 failed")
	if _, err := fs.SyncReviews(bg, ""); err != nil {
		t.Fatal(err)
	}

	ctx := newBrowser(t)
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))
	steps(t, ctx, "open the board", chromedp.Navigate(e.ts.URL+"/p/demo"), chromedp.WaitVisible(chromedp.CSS(cardSel(board.Verification, 1))))
	badge := cardSel(board.Verification, 1) + " .badge.pr"
	if got := eval[string](t, ctx, `document.querySelector(`+strconv.Quote(badge)+`).textContent`); got != "PR #1 open · checks failure" {
		t.Fatalf("the card's pull request badge says %q", got)
	}
	screenshot(t, ctx, "board-pull-request")

	// The card opens the ticket, which links to the pull request.
	steps(t, ctx, "open the ticket from its card", click("#t-"+tk.ID))
	waitFor(t, ctx, "the ticket page shows the pull request", `document.readyState === "complete" && document.getElementById("pr-link") !== null`)
	if href := eval[string](t, ctx, `document.getElementById("pr-link").href`); href != gh.URL+"/acme/widget/pull/1" {
		t.Fatalf("the pull request link goes to %q; want the pull request on the forge", href)
	}
	state := eval[string](t, ctx, `document.getElementById("pr-state").textContent + " " + document.getElementById("pr-checks").textContent`)
	if state != "open failure" {
		t.Fatalf("the ticket page says %q", state)
	}
	screenshot(t, ctx, "ticket-pull-request")

	// Merged on the forge: the next sync moves the ticket to DONE, and the
	// open board shows it without a reload.
	steps(t, ctx, "back to the board", chromedp.Navigate(e.ts.URL+"/p/demo"), chromedp.WaitVisible(chromedp.CSS(cardSel(board.Verification, 1))))
	waitFor(t, ctx, "the live stream is open", streamsOpen)
	eval[bool](t, ctx, `window.__noReload = true`)
	gh.MergeOutside("acme", "widget", 1, "dave")
	if rep, err := fs.SyncReviews(bg, ""); err != nil || rep.Merged != 1 {
		t.Fatalf("sync: %+v, %v", rep, err)
	}
	waitFor(t, ctx, "the card shows the merge in DONE", `(() => {
		const b = document.querySelector(`+strconv.Quote(cardSel(board.Done, 1)+" .badge.pr")+`);
		return !!b && b.textContent.startsWith("PR #1 merged") && window.__noReload === true;
	})()`)
	if !strings.Contains(eval[string](t, ctx, `document.body.textContent`), "PR #1 merged") {
		t.Fatal("no merged badge")
	}
}

// get2 reads a ticket.
func (e *env) get2(t testing.TB, ref board.Ref) board.Ticket {
	t.Helper()
	tk, err := e.db.Ticket(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}
