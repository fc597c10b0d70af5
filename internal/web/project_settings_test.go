package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// The settings of board.Settings without a field of their own in the API
// (the sandbox limits) are fields of the API's create and PATCH and of
// the settings form, read, checked and shown through the table.
func TestAPI_ProjectTableSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	repo := t.TempDir()
	r := e.api(t, "POST", "/api/projects", fmt.Sprintf(`{"slug":"big","repo":%q,"limitMemoryMib":8192,"limitProcesses":4096}`, repo))
	wantStatus(t, r, http.StatusCreated)
	wantBody(t, r, `"limitMemoryMib": 8192`, `"limitProcesses": 4096`)
	r = e.api(t, "POST", "/api/projects", fmt.Sprintf(`{"slug":"bad","repo":%q,"limitProcesses":2}`, repo))
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "processes must be 0 (the default) or from 16 to 1048576, got 2")

	r = e.api(t, "PATCH", "/api/projects/big", `{"limitTmpMib":16,"limitProcesses":0}`)
	wantStatus(t, r, http.StatusOK)
	got, _ := e.db.Project(context.Background(), "big")
	if a := got.Agent; a.LimitTmpMiB != 16 || a.LimitProcesses != 0 || a.LimitMemoryMiB != 8192 {
		t.Fatalf("after PATCH %+v", a)
	}
	if fields, _ := updatedFields(t, e); !slices.Equal(fields, []string{"limitProcesses", "limitTmpMib"}) {
		t.Errorf("PATCH wrote %v", fields)
	}
	for _, body := range []string{`{"limitTmpMib":"lots"}`, `{"limitTmpMib":1.5}`, `{"limitMemoryMib":1}`} {
		wantStatus(t, e.api(t, "PATCH", "/api/projects/big", body), http.StatusBadRequest)
	}
	wantBody(t, e.api(t, "PATCH", "/api/projects/big", `{"limitMemoryMib":1}`), "memory must be 0 (the default) or from 64")
}

func TestPages_ProjectSettingsTableFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.project(t, "demo")
	c := e.browser(t)
	r := e.get(t, c, "/p/demo/settings")
	wantBody(t, r, `id="section-Limits"`, `name="limitProcesses" value=""`, "config.json&#39;s limits.processes")

	form := settingsForm(p)
	form.Set("limitProcesses", "64")
	form.Set("limitTmpMib", "")
	wantStatus(t, e.post(t, c, "/p/demo/settings", form), http.StatusSeeOther)
	got, _ := e.db.Project(context.Background(), "demo")
	if got.Agent.LimitProcesses != 64 || got.Agent.LimitTmpMiB != 0 {
		t.Fatalf("after save %+v", got.Agent)
	}
	wantBody(t, e.get(t, c, "/p/demo/settings"), `name="limitProcesses" value="64"`)

	form.Set("limitProcesses", "many")
	form.Set("limitMemoryMib", "1")
	r = e.post(t, c, "/p/demo/settings", form)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `value="many"`, "processes must be a whole number", "memory must be 0 (the default) or from 64")
	if got, _ := e.db.Project(context.Background(), "demo"); got.Agent.LimitProcesses != 64 || got.Agent.LimitMemoryMiB != 0 {
		t.Fatalf("a refused form changed %+v", got.Agent)
	}
	_ = board.Settings
}

// The engine's credentials (a choice declared in board.Settings) are a
// field of the API and of the settings form; an unknown value is refused
// with the values it may take.
func TestAPI_ProjectEngineAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	repo := t.TempDir()
	r := e.api(t, "POST", "/api/projects", fmt.Sprintf(`{"slug":"sub","repo":%q,"engine":"claude-code","engineAuth":"login"}`, repo))
	wantStatus(t, r, http.StatusCreated)
	wantBody(t, r, `"engineAuth": "login"`)
	r = e.api(t, "PATCH", "/api/projects/sub", `{"engineAuth":"password"}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "use gateway")
	c := e.browser(t)
	wantBody(t, e.get(t, c, "/p/sub/settings"), `id="section-Credentials"`, `name="engineAuth" value="login"`)
	form := settingsForm(mustProject(t, e, "sub"))
	form.Set("engineAuth", "gateway")
	wantStatus(t, e.post(t, c, "/p/sub/settings", form), http.StatusSeeOther)
	if got, _ := e.db.Project(context.Background(), "sub"); got.Agent.EngineAuth != board.EngineAuthGateway {
		t.Fatalf("after save engineAuth = %q", got.Agent.EngineAuth)
	}
}

func mustProject(t *testing.T, e *env, slug string) board.Project {
	t.Helper()
	p, err := e.db.Project(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
