package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestSchedules_FireNow: the Schedules page has a Fire now button on each
// active schedule when the server can fire schedules; it fires through
// Options.FireSchedule (`bonsai schedule fire`) and says what happened, or
// shows the refusal on the page. The API's route does the same.
func TestSchedules_FireNow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	for _, body := range []string{
		`{"name": "deps", "kind": "cron", "expr": "0 9 * * 1", "timezone": "UTC", "title": "Deps {date}"}`,
		`{"name": "idle", "kind": "cron", "expr": "@daily", "timezone": "UTC", "title": "Idle", "paused": true}`,
	} {
		wantStatus(t, e.api(t, http.MethodPost, "/api/projects/demo/schedules", body), http.StatusCreated)
	}
	c := e.browser(t)
	if strings.Contains(e.get(t, c, "/p/demo/schedules").body, `id="fire-deps"`) {
		t.Error("Fire now shows on a server that cannot fire schedules")
	}
	r := e.api(t, http.MethodPost, "/api/projects/demo/schedules/deps/fire", "")
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "bonsai schedule fire demo deps")

	var fired []string
	e.srv.opts.FireSchedule = func(ctx context.Context, project, name string) (string, error) {
		fired = append(fired, project+"/"+name)
		if name == "deps" {
			return "demo/deps fired: created demo#1", nil
		}
		return "", board.Errorf(board.EREFUSED, "schedule %s/%s is paused; resume it first", project, name)
	}
	page := e.get(t, c, "/p/demo/schedules")
	wantBody(t, page, `id="fire-deps"`, "Fire now")
	if strings.Contains(page.body, `id="fire-idle"`) {
		t.Error("Fire now shows on a paused schedule")
	}
	r = e.post(t, c, "/p/demo/schedules", url.Values{"action": {"fire"}, "schedule": {"deps"}})
	wantStatus(t, r, http.StatusSeeOther)
	loc := r.header.Get("Location")
	wantBody(t, e.get(t, c, loc), `id="schedule-notice"`, "demo/deps fired: created demo#1")

	r = e.post(t, c, "/p/demo/schedules", url.Values{"action": {"fire"}, "schedule": {"idle"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "is paused; resume it first")
	wantStatus(t, e.post(t, c, "/p/demo/schedules", url.Values{"action": {"fire"}, "schedule": {"nope"}}), http.StatusUnprocessableEntity)

	r = e.api(t, http.MethodPost, "/api/projects/demo/schedules/deps/fire", "")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"message": "demo/deps fired: created demo#1"`)
	wantStatus(t, e.api(t, http.MethodPost, "/api/projects/demo/schedules/nope/fire", ""), http.StatusNotFound)
	if strings.Join(fired, ",") != "demo/deps,demo/idle,demo/deps" {
		t.Errorf("fired %v", fired)
	}
}
