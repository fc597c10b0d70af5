package web

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// The tracker settings are inputs of their own section on the settings
// page, derived from board.Settings, and checked as a whole on save.
func TestPages_ProjectTrackerSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.project(t, "demo")
	c := e.browser(t)
	wantBody(t, e.get(t, c, "/p/demo/settings"), `id="section-Tracker"`, `name="tracker"`, `name="trackerLabels"`, `name="trackerJql"`)

	form := settingsForm(p)
	form.Set("tracker", "github")
	form.Set("trackerLabels", "bonsai, triage")
	wantStatus(t, e.post(t, c, "/p/demo/settings", form), http.StatusSeeOther)
	got, _ := e.db.Project(context.Background(), "demo")
	if got.Agent.Tracker != board.TrackerGitHub || !slices.Equal(got.Agent.TrackerLabels, []string{"bonsai", "triage"}) {
		t.Fatalf("after save %+v", got.Agent)
	}
	wantBody(t, e.get(t, c, "/p/demo/settings"), `name="trackerLabels" value="bonsai,triage"`)

	form.Set("tracker", "linear")
	r := e.post(t, c, "/p/demo/settings", form)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "a Linear tracker needs its team")
	if got, _ := e.db.Project(context.Background(), "demo"); got.Agent.Tracker != board.TrackerGitHub {
		t.Fatalf("a refused form changed the tracker to %q", got.Agent.Tracker)
	}
}
