package web

import (
	"context"
	"net/http"
	"testing"
)

// TestSharedBoard_RefusesLocalRepo: on a board several machines share
// (Postgres), a project's repository must be a git URL; a local path is
// refused with the reason and the fix, through the API and the settings
// form, and the settings of a project that has one (moved from SQLite)
// still save while its repository stays.
func TestSharedBoard_RefusesLocalRepo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.opts.SharedBoard = true
	local := t.TempDir()
	const why = "is a local path, but the board is on Postgres, shared by several machines"

	r := e.api(t, "POST", "/api/projects", `{"slug":"demo","repo":"`+local+`"}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, why, "give a git URL every machine can clone")
	r = e.api(t, "POST", "/api/projects", `{"slug":"demo","repo":"file://`+local+`"}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, why)
	r = e.api(t, "POST", "/api/projects", `{"slug":"demo","repo":"https://git.example.com/acme/widget.git"}`)
	wantStatus(t, r, http.StatusCreated)
	r = e.api(t, "PATCH", "/api/projects/demo", `{"repo":"`+local+`"}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, why)
	wantStatus(t, e.api(t, "PATCH", "/api/projects/demo", `{"repo":"git@git.example.com:acme/widget.git"}`), http.StatusOK)

	// A project with a local path from before the move: its settings
	// save, and a new local path is refused next to the field.
	p := e.project(t, "old")
	c := e.browser(t)
	form := settingsForm(p)
	form.Set("name", "Old")
	wantStatus(t, e.post(t, c, "/p/old/settings", form), http.StatusSeeOther)
	form.Set("repo", t.TempDir())
	r = e.post(t, c, "/p/old/settings", form)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, why)
	form.Set("repo", "https://git.example.com/acme/old.git")
	wantStatus(t, e.post(t, c, "/p/old/settings", form), http.StatusSeeOther)
	got, err := e.db.Project(context.Background(), "old")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Old" || got.Repo != "https://git.example.com/acme/old.git" {
		t.Fatalf("after the forms: %+v", got)
	}

	// On one machine's board a local path is fine.
	e.srv.opts.SharedBoard = false
	wantStatus(t, e.api(t, "POST", "/api/projects", `{"slug":"mine","repo":"`+local+`"}`), http.StatusCreated)
}
