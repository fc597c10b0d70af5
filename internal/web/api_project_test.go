package web

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

func TestAPI_EditProject(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.opts.CheckModel = checkModel
	e.project(t, "demo")
	e.ticket(t, "demo", "one", board.Research)

	r := e.api(t, "PATCH", "/api/projects/demo",
		`{"name":"Demo","model":"openai/gpt-5","verify":"go test ./...","budgetUsd":2.5,"ticketTokens":400000,
		  "runBudgetUsd":0.5,"runTokens":100000,"dailyBudgetUsd":10,"dailyTokens":2000000,"takeBacklog":true,"defaultBranch":"develop"}`)
	wantStatus(t, r, http.StatusOK)
	var d view.ProjectDetail
	r.json(t, &d)
	a := d.Agent
	if d.Name != "Demo" || d.DefaultBranch != "develop" || a.Model != "openai/gpt-5" || a.Verify != "go test ./..." ||
		a.BudgetUSD != 2.5 || a.TicketTokens != 400000 || a.RunBudgetUSD != 0.5 || a.RunTokens != 100000 ||
		a.DailyBudgetUSD != 10 || a.DailyTokens != 2000000 || !a.TakeBacklog || d.Counts[board.Research] != 1 {
		t.Fatalf("after PATCH %+v", d)
	}
	// The answer is what GET answers.
	if g := e.api(t, "GET", "/api/projects/demo", ""); g.body != r.body {
		t.Errorf("PATCH answered\n%s\nGET answers\n%s", r.body, g.body)
	}

	// Absent fields are kept; only the changed one is written.
	r = e.api(t, "PATCH", "/api/projects/demo", `{"takeBacklog":false,"budgetUsd":2.5}`)
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"budgetUsd": 2.5`, `"model": "openai/gpt-5"`)
	if strings.Contains(r.body, "takeBacklog") {
		t.Error("takeBacklog is still on")
	}
	if fields, _ := updatedFields(t, e); !slices.Equal(fields, []string{"takeBacklog"}) {
		t.Errorf("the second PATCH wrote %v, want only takeBacklog", fields)
	}
	// The permission mode: "plan" or "auto"; anything else is refused.
	r = e.api(t, "PATCH", "/api/projects/demo", `{"permissionMode":"plan"}`)
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"permissionMode": "plan"`)
	r = e.api(t, "PATCH", "/api/projects/demo", `{"permissionMode":"yolo"}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `permission mode \"yolo\"; use auto`)
	wantStatus(t, e.api(t, "PATCH", "/api/projects/demo", `{"permissionMode":"auto"}`), http.StatusOK)
	// A PATCH that changes nothing writes nothing.
	_, before := updatedFields(t, e)
	wantStatus(t, e.api(t, "PATCH", "/api/projects/demo", `{"name":"Demo"}`), http.StatusOK)
	if _, after := updatedFields(t, e); after != before {
		t.Error("an unchanged PATCH recorded an event")
	}
	// Empty model and 0 caps fall back to config.json's.
	r = e.api(t, "PATCH", "/api/projects/demo", `{"model":"","budgetUsd":0}`)
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(r.body, `"model"`) || strings.Contains(r.body, `"budgetUsd"`) {
		t.Errorf("model and budget not cleared:\n%s", r.body)
	}

	for _, tt := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"bad JSON", "/api/projects/demo", `{"name":`, 400, "invalid JSON"},
		{"unknown field", "/api/projects/demo", `{"colour":"red"}`, 400, `unknown field \"colour\"`},
		{"nothing", "/api/projects/demo", `{}`, 400, "nothing to change; give at least one of name, repo, defaultBranch"},
		{"empty name", "/api/projects/demo", `{"name":" "}`, 400, "project name is empty"},
		{"bad branch", "/api/projects/demo", `{"defaultBranch":"a..b"}`, 400, "not a valid git branch name"},
		{"bad model", "/api/projects/demo", `{"model":"gpt-5"}`, 400, "must look like provider/model"},
		{"unknown provider", "/api/projects/demo", `{"model":"antropic/x"}`, 400, `unknown provider \"antropic\"`},
		{"negative cap", "/api/projects/demo", `{"runTokens":-1}`, 400, "run tokens must be 0"},
		{"tokens as a fraction", "/api/projects/demo", `{"dailyTokens":1.5}`, 400, "invalid JSON"},
		{"relative repo", "/api/projects/demo", `{"repo":"src/demo"}`, 400, "must be an absolute path"},
		{"first field wins", "/api/projects/demo", `{"dailyBudgetUsd":-1,"name":""}`, 400, "project name is empty"},
		{"no such project", "/api/projects/nope", `{"name":"x"}`, 404, `project \"nope\" not found`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.api(t, "PATCH", tt.path, tt.body)
			wantStatus(t, r, tt.status)
			wantBody(t, r, `"error"`, tt.want)
		})
	}
	got, _ := e.db.Project(context.Background(), "demo")
	if got.Name != "Demo" || got.Agent.RunTokens != 100000 {
		t.Fatalf("a refused PATCH changed the project: %+v", got)
	}

	req, _ := http.NewRequest("PATCH", e.ts.URL+"/api/projects/demo", strings.NewReader(`{"name":"x"}`))
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", "text/plain")
	wantStatus(t, send(t, anon(), req), http.StatusUnsupportedMediaType)
	r = e.api(t, "PATCH", "/api/projects/demo", `{"verify":"`+strings.Repeat("a", maxBody)+`"}`)
	wantStatus(t, r, http.StatusRequestEntityTooLarge)
}

func TestAPI_ArchiveProject(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "kept", board.Backlog)

	r := e.api(t, "POST", "/api/projects/demo/archive", "")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"active": false`, `"BACKLOG": 1`)
	wantBody(t, e.api(t, "GET", "/api/projects", ""), "[]")
	wantBody(t, e.api(t, "GET", "/api/projects?all=1", ""), `"slug": "demo"`)
	// Archiving again changes nothing.
	wantBody(t, e.api(t, "POST", "/api/projects/demo/archive", ""), `"active": false`)

	r = e.api(t, "POST", "/api/projects/demo/unarchive", "")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"active": true`)
	if g := e.api(t, "GET", "/api/projects/demo", ""); g.body != r.body {
		t.Errorf("unarchive answered\n%s\nGET answers\n%s", r.body, g.body)
	}
	var types []board.EventType
	es, _ := e.db.Events(context.Background(), 0, 100)
	for _, ev := range es {
		types = append(types, ev.Type)
	}
	if slices.Index(types, board.EventProjectArchived) < 0 || slices.Index(types, board.EventProjectRestored) < 0 {
		t.Errorf("events %v lack project.archived and project.restored", types)
	}

	for _, path := range []string{"/api/projects/nope/archive", "/api/projects/nope/unarchive"} {
		r := e.api(t, "POST", path, "")
		wantStatus(t, r, http.StatusNotFound)
		wantBody(t, r, `"code": "not_found"`)
	}
}

// TestAPI_ProjectRoutesNeedCredentials covers 401 and 403 on the new
// routes: no token, and a browser's cookie without the CSRF token.
func TestAPI_ProjectRoutesNeedCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	c := e.browser(t)
	for _, tt := range []struct{ method, path, body string }{
		{"PATCH", "/api/projects/demo", `{"name":"x"}`},
		{"POST", "/api/projects/demo/archive", ""},
		{"POST", "/api/projects/demo/unarchive", ""},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, e.ts.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			r := send(t, anon(), req)
			wantStatus(t, r, http.StatusUnauthorized)
			wantBody(t, r, `"code": "unauthorized"`)

			req, _ = http.NewRequest(tt.method, e.ts.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			r = send(t, c, req)
			wantStatus(t, r, http.StatusForbidden)
			wantBody(t, r, `"code": "csrf"`)

			req, _ = http.NewRequest(tt.method, e.ts.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(csrfHeader, e.srv.auth.csrf)
			wantStatus(t, send(t, c, req), http.StatusOK)
		})
	}
	got, _ := e.db.Project(context.Background(), "demo")
	if got.Name != "x" || !got.Active {
		t.Fatalf("after the browser's requests %+v", got)
	}
}
