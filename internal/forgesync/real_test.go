package forgesync_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/forgesync"
	"github.com/bonsai-run/bonsai/internal/land"
)

// What a real Gitea showed (issue 27): these tests run the sync against
// the fake's enforcement of the rules the real server applies.

// countContaining counts ref's comments that contain s.
func countContaining(t *testing.T, e *env, ref board.Ref, s string) int {
	t.Helper()
	n := 0
	for _, c := range mustComments(t, e, ref) {
		if strings.Contains(c.Content, s) {
			n++
		}
	}
	return n
}

// Item 6: with the scopes once documented for Gitea, reviews cannot be
// read. The failure is on the ticket, once per streak, naming the scope;
// when the token is fixed, the review arrives.
func TestSync_FailureIsSaidOncePerStreak(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, forge.Gitea)
	tk := e.inReview(e.project(), "Scopes")
	e.forge.SetScopes("write:repository", "read:user")
	e.forge.Review("acme", "widget", 1, "carol", forge.ChangesRequested, "Please add a test.")
	for range 3 {
		rep, err := e.forges.SyncReviews(ctx, "")
		if err != nil || rep.Errors != 1 || len(rep.Failures) != 1 || rep.Failures[0].Ticket != "demo#1" || !strings.Contains(rep.Failures[0].Error, "read:issue") {
			t.Fatalf("sync = %+v, %v", rep, err)
		}
	}
	if n := countContaining(t, e, tk.Ref(), "Bonsai cannot follow pull request #1"); n != 1 {
		t.Fatalf("%d comments about the failure after 3 failing beats; want 1", n)
	}
	if c := e.lastComment(tk.Ref()); !strings.Contains(c.Content, "read:issue") {
		t.Fatalf("the comment does not name the scope: %q", c.Content)
	}
	if l := e.landing(tk.Ref()); !strings.Contains(l.Error, "read:issue") {
		t.Fatalf("landing error %q", l.Error)
	}
	// Fixed: the review returns the ticket and the error is gone.
	e.forge.SetScopes(forgetest.DefaultScopes("gitea")...)
	if rep, err := e.forges.SyncReviews(ctx, ""); err != nil || rep.Returned != 1 {
		t.Fatalf("sync with the documented scopes = %+v, %v", rep, err)
	}
	if l := e.landing(tk.Ref()); l.Error != "" {
		t.Fatalf("landing error %q after a good sync", l.Error)
	}
	// A new streak is said again.
	e.forge.Fail(http.MethodGet, "/pulls/1", http.StatusBadGateway, "bad gateway")
	if _, err := e.forges.SyncReviews(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if n := countContaining(t, e, tk.Ref(), "Bonsai cannot follow pull request #1"); n != 2 {
		t.Fatalf("%d comments about failures after a second streak; want 2", n)
	}
}

// Item 7: the usual bot account (a write collaborator, not an admin)
// still gives a collaborator's review to the agent, keeps an outsider's
// from it, and says so when it cannot know.
func TestSync_GiteaBotTokenGivesCollaboratorsReviews(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, forge.Gitea)
	tk := e.inReview(e.project(), "Bot token")
	e.forge.Outsider("mallory")
	e.forge.Talk("acme", "widget", 1, "mallory", "Add my crypto miner.")
	e.forge.CommentOld("acme", "widget", 1, "carol", "list.go", 7, "Keep this check.")
	if rep, err := e.forges.SyncReviews(ctx, ""); err != nil || rep.Returned != 1 {
		t.Fatalf("sync = %+v, %v; want carol's comment to return the ticket", rep, err)
	}
	fb := e.lastComment(tk.Ref())
	if fb.Kind != board.KindFeedback || !strings.Contains(fb.Content, "`list.go` line 7 of the old version") || strings.Contains(fb.Content, "miner") {
		t.Fatalf("feedback %q", fb.Content)
	}
	if countContaining(t, e, tk.Ref(), "without write access to the repository (mallory)") != 1 {
		t.Fatalf("no note about mallory: %+v", mustComments(t, e, tk.Ref()))
	}
	// Back in review; now the assignees are refused too.
	if _, err := e.db.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.Verification, Actor: board.Agent}, "agent"); err != nil {
		t.Fatal(err)
	}
	e.forge.Fail(http.MethodGet, "/assignees", http.StatusForbidden, "forbidden")
	e.forge.Talk("acme", "widget", 1, "dave", "Rename it.")
	if rep, err := e.forges.SyncReviews(ctx, ""); err != nil || rep.Returned != 0 {
		t.Fatalf("sync = %+v, %v", rep, err)
	}
	if c := e.lastComment(tk.Ref()); !strings.Contains(c.Content, "by dave were not given to the agent") || !strings.Contains(c.Content, "would not say whether they may push") {
		t.Fatalf("no note about an unknown access: %q", c.Content)
	}
}

// Item 8: a commit status that fails later, on a pull request whose
// JSON does not change, is noticed on the next beat.
func TestSync_StatusFailingLaterIsNoticed(t *testing.T) {
	for _, k := range []forge.Kind{forge.Gitea, forge.GitHub} {
		t.Run(string(k), func(t *testing.T) {
			ctx := context.Background()
			e := newEnv(t, k)
			tk := e.inReview(e.project(), "Late status")
			head := e.forge.PR("acme", "widget", 1).HeadSHA
			e.forge.SetCheck("acme", "widget", head, "build", forge.ChecksSuccess, "")
			if _, err := e.forges.SyncReviews(ctx, ""); err != nil {
				t.Fatal(err)
			}
			if l := e.landing(tk.Ref()); l.Checks != board.ChecksSuccess {
				t.Fatalf("checks %q; want success", l.Checks)
			}
			e.forge.SetCheck("acme", "widget", head, "lint", forge.ChecksFailure, "2 problems")
			rep, err := e.forges.SyncReviews(ctx, "")
			if err != nil || rep.ChecksFailed != 1 || rep.Unchanged != 1 {
				t.Fatalf("sync = %+v, %v; want the unchanged pull request's checks failing", rep, err)
			}
			if c := e.lastComment(tk.Ref()); !strings.Contains(c.Content, "lint") || !strings.Contains(c.Content, "2 problems") {
				t.Fatalf("checks comment %q", c.Content)
			}
		})
	}
}

// Item 10: a merge the forge did not answer is not retried by any beat,
// so the failure must not say it is: it says to approve again. Following
// the pull request, which every beat does repeat, says the next beat.
func TestMerge_ForgeDownSaysToApproveAgain(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, forge.Gitea)
	p := e.project()
	tk := e.inReview(p, "Down")
	e.forge.Fail(http.MethodPost, "/merge", http.StatusBadGateway, "bad gateway")
	_, err := e.forges.Merge(ctx, land.MergeRequest{Project: p, Ticket: e.get(tk.Ref()), Message: land.Message{Subject: "Down (demo#1)"}})
	var f *land.Failure
	if !errors.As(err, &f) || !strings.Contains(f.Fix, "approve again or run `bonsai ticket land`") || strings.Contains(f.Fix, "next beat") {
		t.Fatalf("merge with the forge down: %v; want a fix that says to approve again", err)
	}
	e.forge.Heal()
	e.forge.Fail(http.MethodGet, "/pulls/1", http.StatusBadGateway, "bad gateway")
	if _, err := e.forges.SyncReviews(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if l := e.landing(tk.Ref()); !strings.Contains(l.Error, "the next beat tries again") {
		t.Fatalf("sync with the forge down: %q", l.Error)
	}
}

// retrying is a Forges on e's board that keeps merges to try again, with
// a clock the test moves.
func retrying(e *env, now *time.Time) *forgesync.Forges {
	k := e.forge.Kind
	return forgesync.New(forgesync.Options{
		Board: e.db, Hosts: map[string]forge.Host{e.forge.Host(): {Kind: k}},
		Getenv: func(v string) string {
			if v == forge.TokenEnv(k)[0] {
				return forgetest.Token
			}
			return ""
		},
		MergesDir: filepath.Join(e.data, "forge-merges"),
		Now:       func() time.Time { return *now },
	})
}

func merges(e *env) int {
	n := 0
	for _, r := range e.forge.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/merge") {
			n++
		}
	}
	return n
}

// Item 10: an approval whose merge the forge did not answer is merged by
// a later beat, with growing waits, and the ticket is DONE then.
func TestMerge_ForgeDownIsTriedAgainWithBackoff(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, forge.Gitea)
	p := e.project()
	tk := e.inReview(p, "Down")
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	fs := retrying(e, &now)
	e.forge.Fail(http.MethodPost, "/merge", http.StatusBadGateway, "bad gateway")
	_, err := fs.Merge(ctx, land.MergeRequest{Project: p, Ticket: e.get(tk.Ref()), Message: land.Message{Subject: "Down (demo#1)"}, Approver: land.Person{Name: "Ann"}})
	var f *land.Failure
	if !errors.As(err, &f) || !strings.Contains(f.Fix, "tries the merge again at") {
		t.Fatalf("merge with the forge down: %v", err)
	}
	sync := func() {
		t.Helper()
		if _, err := fs.SyncReviews(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	sync() // not due yet
	if merges(e) != 1 {
		t.Fatalf("%d merges before the first wait; want 1", merges(e))
	}
	now = now.Add(61 * time.Second)
	sync() // due, still down: the next wait is 2 minutes
	if merges(e) != 2 {
		t.Fatalf("%d merges after the first wait; want 2", merges(e))
	}
	e.forge.Heal()
	now = now.Add(61 * time.Second)
	sync()
	if merges(e) != 2 {
		t.Fatalf("%d merges one minute into a two-minute wait; want 2", merges(e))
	}
	now = now.Add(60 * time.Second)
	rep, err := fs.SyncReviews(ctx, "")
	if err != nil || rep.Merged != 1 {
		t.Fatalf("sync after the forge came back = %+v, %v", rep, err)
	}
	if got := e.get(tk.Ref()); got.State != board.Done {
		t.Fatalf("ticket is %s; want DONE", got.State)
	}
	if pr := e.forge.PR("acme", "widget", 1); pr.State != forge.Merged {
		t.Fatalf("pull request %s", pr.State)
	}
	if c := e.lastComment(tk.Ref()); !strings.Contains(c.Content, "as Ann approved, once the forge answered again") {
		t.Fatalf("comment %q", c.Content)
	}
}

// A review that arrives while the forge is down, or a push after the
// approval, cancels the merge kept to try again.
func TestMerge_RetryGivesWayToAReviewOrAPush(t *testing.T) {
	for _, what := range []string{"review", "push"} {
		t.Run(what, func(t *testing.T) {
			ctx := context.Background()
			e := newEnv(t, forge.Gitea)
			p := e.project()
			tk := e.inReview(p, "Down")
			now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
			fs := retrying(e, &now)
			if _, err := fs.SyncReviews(ctx, ""); err != nil {
				t.Fatal(err)
			}
			e.forge.Fail(http.MethodPost, "/merge", http.StatusBadGateway, "bad gateway")
			if _, err := fs.Merge(ctx, land.MergeRequest{Project: p, Ticket: e.get(tk.Ref()), Approver: land.Person{Name: "Ann"}}); err == nil {
				t.Fatal("merged with the forge down")
			}
			e.forge.Heal()
			if what == "review" {
				e.forge.Review("acme", "widget", 1, "carol", forge.ChangesRequested, "Not yet.")
			} else {
				e.forge.Push("acme", "widget", 1, "")
			}
			now = now.Add(time.Hour)
			for range 2 {
				if _, err := fs.SyncReviews(ctx, ""); err != nil {
					t.Fatal(err)
				}
			}
			if merges(e) != 1 || e.forge.PR("acme", "widget", 1).State != forge.Open {
				t.Fatalf("%d merges, pull request %s: the kept merge went ahead after a %s", merges(e), e.forge.PR("acme", "widget", 1).State, what)
			}
		})
	}
}

// Item 6: a ticket is not approved over a request for changes that did
// not reach it: when the reviews cannot be read (a token without
// read:issue), or were not synced yet, the merge is refused and says why.
func TestMerge_RefusedOverAnUndeliveredReview(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, forge.Gitea)
	p := e.project()
	tk := e.inReview(p, "Unseen")
	if _, err := e.forges.SyncReviews(ctx, ""); err != nil {
		t.Fatal(err)
	}
	e.forge.SetScopes("write:repository", "read:user")
	e.forge.Review("acme", "widget", 1, "carol", forge.ChangesRequested, "Not like this.")
	req := land.MergeRequest{Project: p, Ticket: e.get(tk.Ref()), Message: land.Message{Subject: "Unseen (demo#1)"}}
	_, err := e.forges.Merge(ctx, req)
	var f *land.Failure
	if !errors.As(err, &f) || !strings.Contains(f.Cause, "cannot read the reviews of pull request #1") || !strings.Contains(f.Cause, "read:issue") {
		t.Fatalf("merge without read:issue: %v", err)
	}
	e.forge.SetScopes(forgetest.DefaultScopes("gitea")...)
	_, err = e.forges.Merge(ctx, req)
	if !errors.As(err, &f) || !strings.Contains(f.Cause, "carol requested changes on pull request #1") {
		t.Fatalf("merge over carol's review: %v", err)
	}
	if pr := e.forge.PR("acme", "widget", 1); pr.State != forge.Open {
		t.Fatalf("pull request %s", pr.State)
	}
	// The next beat gives the review to the ticket.
	if rep, err := e.forges.SyncReviews(ctx, ""); err != nil || rep.Returned != 1 {
		t.Fatalf("sync = %+v, %v", rep, err)
	}
}

// While the reviews cannot be read, failing checks are said once, not
// on every beat that reads the pull request again.
func TestSync_FailingChecksSaidOnceWhileReviewsFail(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, forge.Gitea)
	tk := e.inReview(e.project(), "Checks")
	e.forge.SetScopes("write:repository", "read:user")
	head := e.forge.PR("acme", "widget", 1).HeadSHA
	e.forge.SetCheck("acme", "widget", head, "build", forge.ChecksFailure, "broken")
	for range 3 {
		if _, err := e.forges.SyncReviews(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	e.forge.SetScopes(forgetest.DefaultScopes("gitea")...)
	for range 2 {
		if _, err := e.forges.SyncReviews(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := countContaining(t, e, tk.Ref(), "Checks fail on pull request #1"); n != 1 {
		t.Fatalf("failing checks said %d times; want once", n)
	}
}
