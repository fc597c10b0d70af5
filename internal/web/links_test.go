package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestAPI_Links: links are added and removed through the API, a cycle
// and a link across projects are refused with the reason, a ticket is
// created as a sub-ticket, and GET of a ticket lists its links and why it
// waits.
func TestAPI_Links(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.project(t, "other")
	e.ticket(t, "demo", "Use it", board.InProgress)
	e.ticket(t, "demo", "Build it", board.InProgress)
	e.ticket(t, "other", "Elsewhere", board.Backlog)

	r := e.api(t, "POST", "/api/projects/demo/tickets/1/links", `{"kind":"blocked_by","other":"2"}`)
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"blockedBy": [`, `"ref": "demo#2"`)
	r = e.api(t, "POST", "/api/projects/demo/tickets/2/links", `{"other":"demo#1"}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `dependency cycle: demo#2 → demo#1 → demo#2`)
	r = e.api(t, "POST", "/api/projects/demo/tickets/2/links", `{"other":"other#1"}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `different projects`)
	r = e.api(t, "POST", "/api/projects/demo/tickets/2/links", `{"other":"x y"}`)
	wantStatus(t, r, http.StatusBadRequest)

	r = e.api(t, "GET", "/api/projects/demo/tickets/1", "")
	wantBody(t, r, `"links": {`, `it waits for demo#2 (IN_PROGRESS); it is picked once they are DONE`)

	r = e.api(t, "POST", "/api/projects/demo/tickets", `{"title":"A part","state":"IN_PROGRESS","parent":"#2"}`)
	wantStatus(t, r, http.StatusCreated)
	wantBody(t, r, `"ref": "demo#3"`)
	r = e.api(t, "GET", "/api/projects/demo/tickets/2", "")
	wantBody(t, r, `"children": [`, `"ref": "demo#3"`, `demo#3 (sub-ticket, IN_PROGRESS)`)
	r = e.api(t, "POST", "/api/projects/demo/tickets", `{"title":"Stray","parent":"other#1"}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `another project`)

	r = e.api(t, "DELETE", "/api/projects/demo/tickets/1/links/blocked_by/2", "")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"blockedBy": []`)
	r = e.api(t, "DELETE", "/api/projects/demo/tickets/1/links/blocked_by/2", "")
	wantStatus(t, r, http.StatusNotFound)
	wantBody(t, r, `demo#1 has no blocked_by link to demo#2`)
}

// TestPages_Links: the ticket page lists the dependencies and links
// through its form, showing a refusal next to it; the board shows a
// parent's progress.
func TestPages_Links(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "Parent", board.InProgress)
	e.ticket(t, "demo", "Part one", board.InProgress)
	e.ticket(t, "demo", "Part two", board.InProgress)
	e.toVerification(t, board.Ref{Project: "demo", Number: 3})
	if _, err := e.db.MoveTicket(t.Context(), board.Ref{Project: "demo", Number: 3}, board.MoveRequest{To: board.Done, Actor: board.Human}, "pat"); err != nil {
		t.Fatal(err)
	}
	c := e.browser(t)
	for _, n := range []string{"2", "3"} {
		r := e.post(t, c, "/p/demo/"+n+"/links", url.Values{"kind": {"parent"}, "other": {"#1"}})
		wantStatus(t, r, http.StatusSeeOther)
	}
	r := e.get(t, c, "/p/demo/1")
	wantBody(t, r, `id="children"`, `href="/p/demo/2"`, `Part two`,
		`it waits for demo#2 (sub-ticket, IN_PROGRESS); it is picked once they are DONE`)
	r = e.get(t, c, "/p/demo/2")
	wantBody(t, r, `id="parent"`, `Sub-ticket of <a href="/p/demo/1">demo#1</a>`)

	r = e.post(t, c, "/p/demo/2/links", url.Values{"kind": {"blocked_by"}, "other": {"1"}})
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `id="link-error"`, `dependency cycle`)

	r = e.get(t, c, "/p/demo")
	wantBody(t, r, `<span class="badge progress" title="sub-tickets DONE">1/2 done</span>`)
	if strings.Count(r.body, `badge progress`) != 1 {
		t.Errorf("progress badges: %d, want the parent's only", strings.Count(r.body, `badge progress`))
	}

	r = e.post(t, c, "/p/demo/3/links", url.Values{"kind": {"parent"}, "other": {"1"}, "remove": {"1"}})
	wantStatus(t, r, http.StatusSeeOther)
	r = e.get(t, c, "/p/demo")
	wantBody(t, r, `0/1 done`)
}
