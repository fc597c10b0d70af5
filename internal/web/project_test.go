package web

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
)

// checkModel is the model check `bonsai serve` wires in: the provider must
// be known; a missing key is not an error.
func checkModel(id string) error {
	err := llmprovider.Check(id, func(string) string { return "" })
	if err == nil || llm.KindOf(err) != llm.KindInvalidRequest {
		return nil
	}
	var le *llm.Error
	if errors.As(err, &le) && le.Message != "" {
		return errors.New(le.Message)
	}
	return err
}

// settingsForm is the project settings form as the page submits it for p.
func settingsForm(p board.Project) url.Values {
	f := formOf(p)
	v := url.Values{"name": {f.Name}, "repo": {f.Repo}, "defaultBranch": {f.DefaultBranch}, "model": {f.Model},
		"verify": {f.Verify}, "budgetUsd": {f.BudgetUSD}, "ticketTokens": {f.TicketTokens}, "runBudgetUsd": {f.RunBudgetUSD},
		"runTokens": {f.RunTokens}, "dailyBudgetUsd": {f.DailyBudgetUSD}, "dailyTokens": {f.DailyTokens},
		"permissionMode": {f.Mode}, "allow": {f.Allow}, "ask": {f.Ask}, "sandbox": {f.Sandbox}, "network": {f.Network},
		"allowHosts": {f.AllowHosts}}
	if f.TakeBacklog {
		v.Set("takeBacklog", "1")
	}
	return v
}

// updatedFields returns the fields of the newest project.updated event,
// and how many such events there are.
func updatedFields(t *testing.T, e *env) ([]string, int) {
	t.Helper()
	es, err := e.db.Events(context.Background(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	n := 0
	for _, ev := range es {
		if ev.Type != board.EventProjectUpdated {
			continue
		}
		n++
		var d struct{ Fields []string }
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		fields = d.Fields
	}
	return fields, n
}

func TestPages_ProjectSettingsRenders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.db.CreateProject(context.Background(), board.Project{Slug: "demo", Name: "Demo <b>app</b>",
		Repo: "https://example.com/demo.git", DefaultBranch: "develop", Active: true,
		Agent: board.AgentSettings{Model: "openai/gpt-5", Verify: "go test ./...", BudgetUSD: 2.5, RunTokens: 50000, TakeBacklog: true}})
	if err != nil {
		t.Fatal(err)
	}
	e.project(t, "plain")
	c := e.browser(t)

	r := e.get(t, c, "/p/demo")
	wantBody(t, r, `href="/p/demo/settings"`)
	if strings.Contains(r.body, `id="archived"`) {
		t.Error("an active board says it is archived")
	}
	wantBody(t, e.get(t, c, "/settings"), `<a href="/p/demo/settings">Edit</a>`, `<a href="/p/plain/settings">Edit</a>`)

	r = e.get(t, c, "/p/demo/settings")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `value="Demo &lt;b&gt;app&lt;/b&gt;"`, `value="https://example.com/demo.git"`, `value="develop"`,
		`name="model" value="openai/gpt-5"`, `value="go test ./..."`, `name="budgetUsd" value="2.5"`,
		`name="runTokens" value="50000"`, `name="ticketTokens" value=""`, `name="takeBacklog" value="1" checked`,
		"config.json's model, now <code>anthropic/claude-sonnet-4-5</code>", `placeholder="no cap"`,
		`id="archive-project"`, `action="/p/demo/settings"`, `name="_csrf"`)
	if liveScript(r.body) != "" || strings.Contains(r.body, "<b>app") {
		t.Errorf("the settings page renders markup: %q", liveScript(r.body))
	}
	r = e.get(t, c, "/p/plain/settings")
	wantBody(t, r, `name="model" value="" placeholder="anthropic/claude-sonnet-4-5"`)
	if strings.Contains(r.body, `name="takeBacklog" value="1" checked`) {
		t.Error("take backlog is ticked on a project that does not take it")
	}

	wantStatus(t, e.get(t, c, "/p/nope/settings"), http.StatusNotFound)
	wantStatus(t, e.get(t, anon(), "/p/demo/settings"), http.StatusUnauthorized) // the login form
}

func TestPages_ProjectSettingsSaves(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.opts.CheckModel = checkModel
	p := e.project(t, "demo")
	c := e.browser(t)
	ctx := context.Background()

	form := settingsForm(p)
	form.Set("name", "  Renamed  ")
	form.Set("model", "openai/gpt-5")
	form.Set("budgetUsd", "2.50")
	form.Set("dailyTokens", "1000000")
	form.Set("takeBacklog", "1")
	form.Set("permissionMode", "plan")
	r := e.post(t, c, "/p/demo/settings", form)
	wantStatus(t, r, http.StatusSeeOther)
	if loc := r.header.Get("Location"); loc != "/p/demo/settings?saved=1" {
		t.Fatalf("Location %q", loc)
	}
	got, _ := e.db.Project(ctx, "demo")
	a := got.Agent
	if got.Name != "Renamed" || a.Model != "openai/gpt-5" || a.BudgetUSD != 2.5 || a.DailyTokens != 1000000 || !a.TakeBacklog ||
		a.PermissionMode != board.ModePlan ||
		got.Repo != p.Repo || got.DefaultBranch != "main" || a.Verify != "" || a.RunTokens != 0 {
		t.Fatalf("after save %+v", got)
	}
	// Only what changed is written.
	fields, n := updatedFields(t, e)
	want := []string{"name", "model", "budgetUsd", "dailyTokens", "takeBacklog", "permissionMode"}
	if n != 1 || !slices.Equal(fields, want) {
		t.Fatalf("%d update events, fields %v, want 1 with %v", n, fields, want)
	}
	r = e.get(t, c, "/p/demo/settings?saved=1")
	wantBody(t, r, "Saved.", `value="Renamed"`, `name="takeBacklog" value="1" checked`, `name="permissionMode" value="plan" checked`, `name="budgetUsd" value="2.5"`)

	// The same form again changes nothing and writes nothing.
	r = e.post(t, c, "/p/demo/settings", settingsForm(got))
	wantStatus(t, r, http.StatusSeeOther)
	if loc := r.header.Get("Location"); loc != "/p/demo/settings?saved=0" {
		t.Fatalf("Location %q", loc)
	}
	wantBody(t, e.get(t, c, loc(r)), "Nothing changed.")
	if _, n := updatedFields(t, e); n != 1 {
		t.Fatalf("an unchanged form wrote %d more events", n-1)
	}

	// An unticked box turns the backlog off; empty caps go back to 0, and an
	// empty model to config.json's.
	form = settingsForm(got)
	form.Del("takeBacklog")
	form.Set("permissionMode", "auto")
	form.Set("budgetUsd", "")
	form.Set("model", "")
	form.Set("defaultBranch", "release/2.x")
	form.Set("verify", "make test")
	wantStatus(t, e.post(t, c, "/p/demo/settings", form), http.StatusSeeOther)
	got, _ = e.db.Project(ctx, "demo")
	if got.Agent.TakeBacklog || got.Agent.PermissionMode != board.ModeAuto || got.Agent.BudgetUSD != 0 || got.Agent.Model != "" || got.DefaultBranch != "release/2.x" ||
		got.Agent.Verify != "make test" || got.Agent.DailyTokens != 1000000 {
		t.Fatalf("after the second save %+v", got)
	}

	// A new repository is checked as "add project" checks it.
	form = settingsForm(got)
	form.Set("repo", "git@github.com:acme/demo.git")
	wantStatus(t, e.post(t, c, "/p/demo/settings", form), http.StatusSeeOther)
	if got, _ = e.db.Project(ctx, "demo"); got.Repo != "git@github.com:acme/demo.git" {
		t.Fatalf("repo %q", got.Repo)
	}
}

func loc(r response) string { return r.header.Get("Location") }

func TestPages_ProjectSettingsErrorsKeepTyped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.opts.CheckModel = checkModel
	p := e.project(t, "demo")
	c := e.browser(t)
	for _, tt := range []struct {
		field, value, want string
	}{
		{"name", "   ", "project name is empty"},
		{"name", "two\nlines", "project name must be one line"},
		{"repo", "relative/path", `repository "relative/path" must be an absolute path on the server or a git URL`},
		{"repo", "/no/such/dir", "repository /no/such/dir is not a directory"},
		{"defaultBranch", "bad branch", `branch "bad branch" is not a valid git branch name`},
		{"defaultBranch", "", "branch is empty"},
		{"model", "gpt-5", `model "gpt-5" must look like provider/model`},
		{"model", "antropic/claude-sonnet-4-5", `unknown provider "antropic"`},
		{"budgetUsd", "lots", "budget per ticket must be a number of dollars"},
		{"budgetUsd", "-1", "budget must be 0 (the configured cap) or more, got -1"},
		{"budgetUsd", "NaN", "budget must be a number of dollars"},
		{"ticketTokens", "1.5", "tokens per ticket must be a whole number of tokens"},
		{"runBudgetUsd", "-0.5", "run budget must be 0"},
		{"runTokens", "-5", "run tokens must be 0"},
		{"dailyBudgetUsd", "Inf", "daily budget must be a number of dollars"},
		{"dailyTokens", "many", "tokens per day must be a whole number"},
	} {
		t.Run(tt.field+"="+tt.value, func(t *testing.T) {
			form := settingsForm(p)
			form.Set("verify", "kept <typed> text") // a valid change beside the bad one
			form.Set(tt.field, tt.value)
			r := e.post(t, c, "/p/demo/settings", form)
			wantStatus(t, r, http.StatusBadRequest)
			wantBody(t, r, `<p class="field-error">`+html.EscapeString(tt.want), `aria-invalid="true"`,
				`name="verify" value="kept &lt;typed&gt; text"`)
			// The error sits next to its field: after its input, before the next label.
			in := strings.Index(r.body, `name="`+tt.field+`"`)
			msg := strings.Index(r.body, html.EscapeString(tt.want))
			next := strings.Index(r.body[in:], "<label")
			if in < 0 || msg < in || (next >= 0 && msg > in+next) {
				t.Errorf("the error is not next to %s", tt.field)
			}
			if tt.value != "" && !strings.Contains(r.body, `value="`+html.EscapeString(tt.value)+`"`) &&
				!strings.Contains(r.body, `value="`+strings.ReplaceAll(html.EscapeString(tt.value), "\n", "&#10;")+`"`) {
				t.Errorf("the typed %q is not kept", tt.value)
			}
			got, _ := e.db.Project(context.Background(), "demo")
			if got.Agent.Verify != "" || got.UpdatedAt != p.UpdatedAt {
				t.Fatalf("a refused form wrote %+v", got)
			}
		})
	}

	// Several bad fields are all reported at once.
	form := settingsForm(p)
	form.Set("name", "")
	form.Set("runTokens", "x")
	form.Set("model", "nope")
	r := e.post(t, c, "/p/demo/settings", form)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "project name is empty", "tokens per run must be a whole number", `model &#34;nope&#34; must look like`)
	if n := strings.Count(r.body, `aria-invalid="true"`); n != 3 {
		t.Errorf("%d fields marked invalid, want 3", n)
	}
	wantStatus(t, e.post(t, c, "/p/nope/settings", settingsForm(p)), http.StatusNotFound)
	form = settingsForm(p)
	form.Set("verify", strings.Repeat("a", maxBody))
	wantStatus(t, e.post(t, c, "/p/demo/settings", form), http.StatusRequestEntityTooLarge)
}

func TestPages_ProjectFormsNeedCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.project(t, "demo")
	c := e.browser(t)
	for _, path := range []string{"/p/demo/settings", "/p/demo/archive", "/p/demo/unarchive"} {
		t.Run(path, func(t *testing.T) {
			form := settingsForm(p)
			form.Set("name", "Changed")
			req, _ := http.NewRequest(http.MethodPost, e.ts.URL+path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r := send(t, c, req)
			wantStatus(t, r, http.StatusForbidden)
			got, _ := e.db.Project(context.Background(), "demo")
			if got.Name != p.Name || !got.Active {
				t.Fatalf("a request without the CSRF token changed the project: %+v", got)
			}
		})
	}
}

func TestPages_ProjectArchive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "Kept ticket", board.Backlog)
	c := e.browser(t)
	ctx := context.Background()

	r := e.post(t, c, "/p/demo/archive", nil)
	wantStatus(t, r, http.StatusSeeOther)
	if loc(r) != "/p/demo/settings" {
		t.Fatalf("Location %q", loc(r))
	}
	if got, _ := e.db.Project(ctx, "demo"); got.Active {
		t.Fatal("the project is still active")
	}
	r = e.get(t, c, "/p/demo/settings")
	wantBody(t, r, `id="archived"`, "Agents do not pick this project", `action="/p/demo/unarchive"`, `name="back" value="settings"`)
	if strings.Contains(r.body, `id="archive-project"`) {
		t.Error("an archived project offers to archive it")
	}
	r = e.get(t, c, "/p/demo")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `id="archived"`, `name="back" value="board"`, "Kept ticket")
	r = e.get(t, c, "/")
	wantBody(t, r, `Archived: <a href="/p/demo/settings">Project demo</a>`)
	if strings.Contains(r.body, `class="project-card" href="/p/demo"`) {
		t.Error("the archived project is among the active ones")
	}
	wantBody(t, e.get(t, c, "/settings"), `demo</a> <span class="badge">archived</span>`)

	r = e.post(t, c, "/p/demo/unarchive", url.Values{"back": {"board"}})
	wantStatus(t, r, http.StatusSeeOther)
	if loc(r) != "/p/demo" {
		t.Fatalf("Location %q", loc(r))
	}
	if got, _ := e.db.Project(ctx, "demo"); !got.Active {
		t.Fatal("the project is still archived")
	}
	if strings.Contains(e.get(t, c, "/p/demo").body, `id="archived"`) {
		t.Error("the board still says archived")
	}
	wantStatus(t, e.post(t, c, "/p/nope/archive", nil), http.StatusNotFound)
	wantStatus(t, e.post(t, c, "/p/nope/unarchive", nil), http.StatusNotFound)
}

// refusingStore is the real store whose UpdateProject fails with err.
type refusingStore struct {
	Store
	err error
}

func (s refusingStore) UpdateProject(context.Context, string, board.ProjectPatch) (board.Project, error) {
	return board.Project{}, s.err
}

// TestPages_ProjectSettingsStoreRefuses covers what the store refuses
// after the page's own checks passed: a refusal is shown on the form with
// the typed values; a failure is a 500 that keeps its details in the log.
func TestPages_ProjectSettingsStoreRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.project(t, "demo")
	for _, tt := range []struct {
		err    error
		status int
		want   string
	}{
		{board.Errorf(board.EINVALID, "repo and branch disagree"), http.StatusBadRequest, `<p class="field-error form-error">repo and branch disagree`},
		{errors.New("disk on fire at /secret/path"), http.StatusInternalServerError, "something went wrong on the server"},
	} {
		srv, err := New(Options{Store: refusingStore{Store: e.db, err: tt.err}, Token: e.token, Dir: e.dir})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		form := settingsForm(p)
		form.Set("name", "Typed name")
		req, _ := http.NewRequest("POST", ts.URL+"/p/demo/settings", strings.NewReader(form.Encode()))
		req.Header.Set("Authorization", "Bearer "+e.token)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r := send(t, anon(), req)
		wantStatus(t, r, tt.status)
		wantBody(t, r, tt.want)
		if tt.status == http.StatusBadRequest {
			wantBody(t, r, `value="Typed name"`, `action="/p/demo/settings"`)
		}
		if strings.Contains(r.body, "/secret/path") {
			t.Error("the answer shows the internal error")
		}
		req, _ = http.NewRequest("PATCH", ts.URL+"/api/projects/demo", strings.NewReader(`{"name":"Typed name"}`))
		req.Header.Set("Authorization", "Bearer "+e.token)
		req.Header.Set("Content-Type", "application/json")
		r = send(t, anon(), req)
		wantStatus(t, r, tt.status)
		ts.Close()
	}
}
