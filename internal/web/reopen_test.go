package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// done makes ticket title DONE (approved as a person does), with its
// work landed as commit when commit is not empty.
func (e *env) done(t *testing.T, title, commit string) board.Ticket {
	t.Helper()
	ctx := context.Background()
	tk := e.ticket(t, "demo", title, board.InProgress)
	e.toVerification(t, tk.Ref())
	tk, err := e.db.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.Done, Actor: board.Human}, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if commit != "" {
		if _, err := e.db.SaveLanding(ctx, board.Landing{Ref: tk.Ref(), Mode: board.LandMerge, Branch: "bonsai/demo/x",
			Commit: commit, LandedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	return tk
}

// Issue 27, item 15: a landed DONE ticket moved back to BACKLOG could never
// be closed again, and the Move box pre-selected Backlog. It stays DONE,
// in the web UI and the API alike, and is reopened as a follow-up.
func TestReopen_LandedTicketStaysDoneAndReopensAsAFollowUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	const commit = "0123456789abcdef0123456789abcdef01234567"
	tk := e.done(t, "Add greeting", commit)
	c := e.browser(t)

	page := e.get(t, c, "/p/demo/1")
	wantBody(t, page, "Its work landed, so it stays Done", `id="reopen"`, "Reopen as follow-up")
	if strings.Contains(page.body, `action="/p/demo/1/move"`) {
		t.Error("the page of a landed DONE ticket offers a move")
	}
	r := e.post(t, c, "/p/demo/1/move", url.Values{"state": {"BACKLOG"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "demo#1 is DONE and its work landed as 0123456789ab, so it stays DONE", "bonsai ticket reopen demo#1")
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/move", `{"state":"BACKLOG"}`)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, `"code": "refused"`, "bonsai ticket reopen demo#1")
	if got, _ := e.db.Ticket(context.Background(), tk.Ref()); got.State != board.Done {
		t.Fatalf("ticket is %s after the refused moves, want DONE", got.State)
	}

	// The button: a follow-up in BACKLOG that quotes and links the original.
	r = e.post(t, c, "/p/demo/1/reopen", url.Values{"description": {"It greets in English only."}})
	wantStatus(t, r, http.StatusSeeOther)
	if loc := r.header.Get("Location"); loc != "/p/demo/2" {
		t.Fatalf("reopen went to %q, want the follow-up's page", loc)
	}
	f, err := e.db.Ticket(context.Background(), board.Ref{Project: "demo", Number: 2})
	if err != nil {
		t.Fatal(err)
	}
	if f.Title != "Follow-up: Add greeting" || f.State != board.Backlog ||
		!strings.HasPrefix(f.Description, "It greets in English only.\n\nFollow-up of demo#1, \"Add greeting\", whose work landed as 0123456789ab.") ||
		!strings.Contains(f.Description, "The acceptance criteria of demo#1:\n- it works") {
		t.Errorf("follow-up = %q in %s:\n%s", f.Title, f.State, f.Description)
	}
	wantBody(t, e.get(t, c, "/p/demo/1"), "Reopened as a follow-up: demo#2")

	// The API: the same, 201.
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/reopen", `{"title":"Greet in French","criteria":["it says bonjour"]}`)
	wantStatus(t, r, http.StatusCreated)
	wantBody(t, r, `"title": "Greet in French"`, `"state": "BACKLOG"`, `"it says bonjour"`)

	// A ticket that is not DONE is moved, not reopened.
	e.ticket(t, "demo", "Open", board.Backlog)
	r = e.api(t, "POST", "/api/projects/demo/tickets/4/reopen", "")
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "not DONE: move it instead")
}

// A DONE ticket whose work did not land may go back to BACKLOG (its branch
// lands later); the Move box pre-selects no state.
func TestReopen_UnlandedDoneTicketMovesAndTheBoxPreselectsNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.done(t, "Add greeting", "")
	c := e.browser(t)
	page := e.get(t, c, "/p/demo/1")
	wantBody(t, page, `<select name="state" aria-label="Move to" required><option value="" selected disabled>Choose a state…</option><option value="BACKLOG">Backlog</option></select>`,
		`id="reopen"`)
	r := e.post(t, c, "/p/demo/1/move", url.Values{"state": {"BACKLOG"}})
	wantStatus(t, r, http.StatusSeeOther)
	if got, _ := e.db.Ticket(context.Background(), board.Ref{Project: "demo", Number: 1}); got.State != board.Backlog {
		t.Errorf("ticket is %s, want BACKLOG", got.State)
	}
}
