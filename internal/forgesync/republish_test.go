package forgesync_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/land"
)

// submitted is a ticket the agent moved to VERIFICATION with its branch
// pushed and recorded for review, whose pull request is not opened yet.
func (e *env) submitted(title string) board.Ticket {
	e.t.Helper()
	ctx := context.Background()
	t := e.ticket(title, board.InProgress, "it works")
	branch := "bonsai/" + itoa(t.Number) + "-work"
	gittest.Run(e.t, e.forge.BareDir("acme", "widget"), "branch", branch, "main")
	t, err := e.db.UpdateTicket(ctx, t.Ref(), board.TicketPatch{Branch: &branch}, board.System)
	if err != nil {
		e.t.Fatal(err)
	}
	if t, err = e.db.MoveTicket(ctx, t.Ref(), board.MoveRequest{To: board.Verification, Actor: board.Agent}, "agent"); err != nil {
		e.t.Fatal(err)
	}
	tip := gittest.Run(e.t, e.forge.BareDir("acme", "widget"), "rev-parse", branch)
	if _, err := e.db.SetReview(ctx, board.Review{Ref: t.Ref(), Base: tip, Tip: tip}); err != nil {
		e.t.Fatal(err)
	}
	return t
}

// pullLists counts the requests that look for a ticket's pull request,
// the first step of opening one.
func pullLists(e *env) int {
	n := 0
	for _, r := range e.forge.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/pulls") {
			n++
		}
	}
	return n
}

// Issue 27, item 10: a pull request the forge did not let Bonsai open
// when the ticket reached VERIFICATION is opened by a later beat, with
// growing waits, and the ticket says when.
func TestPublish_ForgeDownIsTriedAgainByTheBeats(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, forge.Gitea)
	p := e.project()
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	fs := retrying(e, &now)
	tk := e.submitted("Down")
	e.forge.Fail(http.MethodGet, "/pulls", http.StatusBadGateway, "bad gateway")
	if err := fs.Publish(ctx, p, e.get(tk.Ref())); forge.ReasonOf(err) != forge.Unavailable {
		t.Fatalf("publish with the forge down: %v", err)
	}
	if c := e.lastComment(tk.Ref()); !strings.Contains(c.Content, "Bonsai tries again at") {
		t.Fatalf("comment %q", c.Content)
	}
	comments := len(mustComments(t, e, tk.Ref()))
	sync := func() {
		t.Helper()
		if _, err := fs.SyncReviews(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	sync() // not due yet
	if n := pullLists(e); n != 1 {
		t.Fatalf("%d tries before the first wait; want 1", n)
	}
	now = now.Add(61 * time.Second)
	sync() // due, still down: the next wait is 2 minutes
	if n := pullLists(e); n != 2 {
		t.Fatalf("%d tries after the first wait; want 2", n)
	}
	if n := len(mustComments(t, e, tk.Ref())); n != comments {
		t.Fatalf("the same failure was said again: %d comments, want %d", n, comments)
	}
	e.forge.Heal()
	now = now.Add(61 * time.Second)
	sync()
	if n := pullLists(e); n != 2 {
		t.Fatalf("%d tries one minute into a two-minute wait; want 2", n)
	}
	now = now.Add(60 * time.Second)
	sync()
	if l := e.landing(tk.Ref()); l.PRNumber != 1 || l.PRState != board.PROpen || l.Error != "" {
		t.Fatalf("landing after the forge came back: %+v", l)
	}
	if c := e.lastComment(tk.Ref()); !strings.Contains(c.Content, "Opened pull request #1") {
		t.Fatalf("comment %q", c.Content)
	}
	now = now.Add(time.Hour)
	sync() // opened: nothing left to try
	if n := pullLists(e); n != 3 {
		t.Fatalf("%d tries after the pull request was opened; want 3", n)
	}
}

// Approving a ticket whose pull request could not be opened opens it and
// merges it, instead of waiting for the next try.
func TestMerge_ApprovalOpensAPullRequestThatFailedToOpen(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, forge.GitHub)
	p := e.project()
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	fs := retrying(e, &now)
	tk := e.submitted("Down")
	e.forge.Fail(http.MethodGet, "/pulls", http.StatusBadGateway, "bad gateway")
	if err := fs.Publish(ctx, p, e.get(tk.Ref())); err == nil {
		t.Fatal("publish with the forge down worked")
	}
	e.forge.Heal()
	m, err := fs.Merge(ctx, land.MergeRequest{Project: p, Ticket: e.get(tk.Ref()), Message: land.Message{Subject: "Down (demo#1)"}, Approver: land.Person{Name: "Ann"}})
	var f *land.Failure
	if errors.As(err, &f) || err != nil {
		t.Fatalf("merge: %v", err)
	}
	if pr := e.forge.PR("acme", "widget", 1); pr.State != forge.Merged || m.Commit == "" {
		t.Fatalf("pull request %s, commit %q", pr.State, m.Commit)
	}
}

// After a day of failures Bonsai stops trying and says what to do.
func TestPublish_StopsTryingAfterADay(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, forge.GitLab)
	p := e.project()
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	fs := retrying(e, &now)
	tk := e.submitted("Down")
	e.forge.Fail(http.MethodGet, "/merge_requests", http.StatusServiceUnavailable, "down")
	fs.Publish(ctx, p, e.get(tk.Ref()))
	for range 30 {
		now = now.Add(time.Hour + time.Minute)
		if _, err := fs.SyncReviews(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	if c := e.lastComment(tk.Ref()); !strings.Contains(c.Content, "does not try again by itself") {
		t.Fatalf("comment %q", c.Content)
	}
	before := len(e.forge.Requests())
	now = now.Add(2 * time.Hour)
	fs.SyncReviews(ctx, "")
	if n := len(e.forge.Requests()); n != before {
		t.Fatalf("%d requests after Bonsai stopped trying", n-before)
	}
}
