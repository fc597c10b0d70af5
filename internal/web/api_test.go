package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

func TestAPI_Projects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.api(t, "GET", "/api/projects", "")
	wantStatus(t, r, 200)
	if strings.TrimSpace(r.body) != "[]" {
		t.Fatalf("empty list is %q, want []", r.body)
	}
	repo := t.TempDir()
	r = e.api(t, "POST", "/api/projects", fmt.Sprintf(`{"slug":"demo","repo":%q,"verify":"go test ./..."}`, repo))
	wantStatus(t, r, http.StatusCreated)
	wantBody(t, r, `"slug": "demo"`, `"defaultBranch": "main"`, `"BACKLOG": 0`)

	for _, tt := range []struct {
		body, want string
		status     int
	}{
		{fmt.Sprintf(`{"slug":"demo","repo":%q}`, repo), `already exists`, http.StatusConflict},
		{fmt.Sprintf(`{"slug":"Bad Slug","repo":%q}`, repo), `project slug`, http.StatusBadRequest},
		{`{"slug":"x","repo":"relative/path"}`, `absolute path`, http.StatusBadRequest},
		{`{"slug":"x","repo":"/does/not/exist"}`, `not a directory`, http.StatusBadRequest},
	} {
		r = e.api(t, "POST", "/api/projects", tt.body)
		wantStatus(t, r, tt.status)
		wantBody(t, r, tt.want)
	}
	e.ticket(t, "demo", "one", board.Research)
	r = e.api(t, "GET", "/api/projects/demo", "")
	wantBody(t, r, `"RESEARCH": 1`, `"verify": "go test ./..."`)
	wantStatus(t, e.api(t, "GET", "/api/projects/nope", ""), http.StatusNotFound)
}

func TestAPI_Tickets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	r := e.api(t, "POST", "/api/projects/demo/tickets",
		`{"title":"Add --verbose","description":"Print *each* step","criteria":["prints steps"," "],"priority":1}`)
	wantStatus(t, r, http.StatusCreated)
	if r.header.Get("Location") != "/api/projects/demo/tickets/1" {
		t.Errorf("Location %q", r.header.Get("Location"))
	}
	var tv view.Ticket
	r.json(t, &tv)
	if tv.Ref != "demo#1" || tv.State != board.Backlog || tv.Priority != 1 || len(tv.Criteria) != 1 {
		t.Fatalf("created %+v", tv)
	}
	e.api(t, "POST", "/api/projects/demo/tickets", `{"title":"Second","state":"research"}`)

	r = e.api(t, "GET", "/api/projects/demo/tickets", "")
	var list []view.Ticket
	r.json(t, &list)
	if len(list) != 2 || list[1].State != board.Research {
		t.Fatalf("list %+v", list)
	}
	r = e.api(t, "GET", "/api/projects/demo/tickets?state=RESEARCH", "")
	list = nil
	r.json(t, &list)
	if len(list) != 1 || list[0].Number != 2 {
		t.Fatalf("filtered list %+v", list)
	}

	r = e.api(t, "GET", "/api/projects/demo/tickets/1", "")
	wantStatus(t, r, 200)
	wantBody(t, r, `"ref": "demo#1"`, `"comments": []`, `"runs": []`)

	for _, tt := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"POST", "/api/projects/demo/tickets", `{"title":""}`, 400, "title is empty"},
		{"POST", "/api/projects/demo/tickets", `{"title":"x","priority":9}`, 400, "priority 9 is out of range"},
		{"POST", "/api/projects/demo/tickets", `{"title":"x","state":"DONE"}`, 400, "starts in BACKLOG"},
		{"POST", "/api/projects/demo/tickets", `{"title":"x","colour":"red"}`, 400, `unknown field`},
		{"POST", "/api/projects/demo/tickets", `{"title":`, 400, "invalid JSON"},
		{"POST", "/api/projects/nope/tickets", `{"title":"x"}`, 404, "not found"},
		{"GET", "/api/projects/nope/tickets", ``, 404, "not found"},
		{"GET", "/api/projects/demo/tickets?state=SOON", ``, 400, "unknown state"},
		{"GET", "/api/projects/demo/tickets/99", ``, 404, "ticket demo#99 not found"},
		{"GET", "/api/projects/demo/tickets/abc", ``, 404, "positive whole number"},
		{"GET", "/api/projects/demo/tickets/-1", ``, 404, "positive whole number"},
		{"GET", "/api/nothing", ``, 404, "not an API route"},
	} {
		t.Run(tt.method+" "+tt.path+" "+tt.body, func(t *testing.T) {
			r := e.api(t, tt.method, tt.path, tt.body)
			wantStatus(t, r, tt.status)
			wantBody(t, r, tt.want, `"error"`)
		})
	}
}

func TestAPI_ContentTypeAndSize(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	req, _ := http.NewRequest("POST", e.ts.URL+"/api/projects/demo/tickets", strings.NewReader(`{"title":"x"}`))
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", "text/plain")
	wantStatus(t, send(t, anon(), req), http.StatusUnsupportedMediaType)

	big := `{"title":"x","description":"` + strings.Repeat("a", maxBody) + `"}`
	r := e.api(t, "POST", "/api/projects/demo/tickets", big)
	wantStatus(t, r, http.StatusRequestEntityTooLarge)
	wantBody(t, r, "larger than 1 MiB")
}

func TestAPI_MoveAndRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "t", board.Backlog)
	r := e.api(t, "POST", "/api/projects/demo/tickets/1/move", `{"state":"VERIFICATION"}`)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, `"code": "refused"`, "BACKLOG → VERIFICATION is not allowed; a ticket reaches VERIFICATION only from IN_PROGRESS, by the agent")

	r = e.api(t, "POST", "/api/projects/demo/tickets/1/move", `{"state":"nowhere"}`)
	wantStatus(t, r, http.StatusBadRequest)

	r = e.api(t, "POST", "/api/projects/demo/tickets/1/move", `{"state":"RESEARCH"}`)
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"state": "RESEARCH"`)
}

func TestAPI_CommentUnblocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "t", board.InProgress)
	ctx := context.Background()
	if _, err := e.db.AddComment(ctx, tk.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "agent",
		Kind: board.KindQuestion, Content: "Which API version?"}); err != nil {
		t.Fatal(err)
	}
	r := e.api(t, "GET", "/api/projects/demo/tickets/1", "")
	wantBody(t, r, `"subState": "blocked"`)

	r = e.api(t, "POST", "/api/projects/demo/tickets/1/comments", `{"content":""}`)
	wantStatus(t, r, http.StatusBadRequest)
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/comments", `{"content":"Use v2."}`)
	wantStatus(t, r, http.StatusCreated)
	wantBody(t, r, `"authorType": "human"`, `"authorName": "tester"`, `"content": "Use v2."`)
	r = e.api(t, "GET", "/api/projects/demo/tickets/1", "")
	wantBody(t, r, `"subState": ""`)
}

func TestAPI_ApproveAndReturn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	a := e.ticket(t, "demo", "a", board.InProgress)
	b := e.ticket(t, "demo", "b", board.InProgress)

	r := e.api(t, "POST", "/api/projects/demo/tickets/1/approve", "")
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "only from VERIFICATION")

	e.toVerification(t, a.Ref())
	e.toVerification(t, b.Ref())
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/approve", `{"comment":"Nice work"}`)
	wantStatus(t, r, 200)
	wantBody(t, r, `"state": "DONE"`)
	r = e.api(t, "GET", "/api/projects/demo/tickets/1", "")
	wantBody(t, r, `"kind": "approval"`, `"content": "Nice work"`)

	r = e.api(t, "POST", "/api/projects/demo/tickets/2/return", `{"feedback":"  "}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "feedback is required")
	r = e.api(t, "POST", "/api/projects/demo/tickets/2/return", `{"feedback":"Handle the empty case"}`)
	wantStatus(t, r, 200)
	wantBody(t, r, `"state": "IN_PROGRESS"`, `"subState": "returned"`)
	r = e.api(t, "GET", "/api/projects/demo/tickets/2", "")
	wantBody(t, r, `"kind": "feedback"`, "Handle the empty case")
}

func TestAPI_EditIsOptimistic(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "old", board.Backlog)
	seen := tk.UpdatedAt.Format(time.RFC3339Nano)

	// Someone else edits first (the env's clock makes theirs a later time).
	title := "theirs"
	if _, err := e.db.UpdateTicket(context.Background(), tk.Ref(), storeTitle(&title), board.Human); err != nil {
		t.Fatal(err)
	}
	r := e.api(t, "PATCH", "/api/projects/demo/tickets/1", fmt.Sprintf(`{"title":"mine","updatedAt":%q}`, seen))
	wantStatus(t, r, http.StatusConflict)
	wantBody(t, r, "changed since you opened it")

	r = e.api(t, "PATCH", "/api/projects/demo/tickets/1", `{"title":"mine","criteria":["a","b"],"priority":0}`)
	wantStatus(t, r, 200)
	wantBody(t, r, `"title": "mine"`, `"priority": 0`)
	r = e.api(t, "PATCH", "/api/projects/demo/tickets/1", `{}`)
	wantStatus(t, r, 400)
	wantBody(t, r, "nothing to change")
}

func TestAPI_Events(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "t", board.Backlog)
	r := e.api(t, "GET", "/api/events", "")
	var es []board.Event
	r.json(t, &es)
	if len(es) != 2 || es[0].Type != board.EventProjectCreated || es[1].Type != board.EventTicketCreated {
		t.Fatalf("events %+v", es)
	}
	r = e.api(t, "GET", fmt.Sprintf("/api/events?after=%d", es[0].ID), "")
	es = nil
	r.json(t, &es)
	if len(es) != 1 || es[0].Type != board.EventTicketCreated {
		t.Fatalf("events after %+v", es)
	}
	wantStatus(t, e.api(t, "GET", "/api/events?after=x", ""), 400)
	wantStatus(t, e.api(t, "GET", "/api/events?limit=0", ""), 400)
	r = e.api(t, "GET", "/api/events?after=1&limit=1", "")
	es = nil
	r.json(t, &es)
	if len(es) != 1 {
		t.Fatalf("limit 1 gave %d", len(es))
	}
}

func TestAPI_StatusAndRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "t", board.Research)
	ctx := context.Background()
	run, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskResearch, WorkerID: "w1"})
	if err != nil {
		t.Fatal(err)
	}
	run.Status, run.CostUSD, run.InputTokens = board.RunCompleted, 0.25, 1200
	if _, err := e.db.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.Catchup(ctx); err != nil {
		t.Fatal(err)
	}
	r := e.api(t, "GET", "/api/status", "")
	wantBody(t, r, `"slug": "demo"`, `"reason": "waiting for research"`, `"recentRuns": [`, `"costUsd": 0.25`)
	r = e.api(t, "GET", "/api/runs/"+run.ID, "")
	wantStatus(t, r, 200)
	wantBody(t, r, `"ref": "demo#1"`, `"status": "completed"`, `"inputTokens": 1200`, `"durationMs"`)
	wantStatus(t, e.api(t, "GET", "/api/runs/nope", ""), 404)
}
