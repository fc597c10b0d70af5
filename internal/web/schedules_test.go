package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestAPI_Schedules creates, reads, edits, pauses, resumes and deletes a
// schedule through the JSON API, and refuses bad input naming the field.
func TestAPI_Schedules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	r := e.api(t, http.MethodPost, "/api/projects/demo/schedules",
		`{"name": "deps", "kind": "cron", "expr": "0 9 * * 1", "timezone": "Europe/Berlin", "title": "Deps {date}", "startState": "RESEARCH", "criteria": ["tests pass", " "]}`)
	wantStatus(t, r, http.StatusCreated)
	var sc board.Schedule
	r.json(t, &sc)
	if sc.Name != "deps" || sc.StartState != board.Research || sc.NextFire.IsZero() || len(sc.Criteria) != 1 {
		t.Fatalf("created %+v", sc)
	}
	if got := sc.NextFire.In(mustZone(t, "Europe/Berlin")); got.Weekday() != time.Monday || got.Hour() != 9 {
		t.Errorf("next firing %s, want a Monday at 09:00 in Berlin", got)
	}
	for body, want := range map[string]string{
		`{"name": "x", "kind": "cron", "expr": "0 9 *", "timezone": "UTC", "title": "t"}`:          `schedule cron`,
		`{"name": "x", "kind": "cron", "expr": "@daily", "timezone": "Nowhere", "title": "t"}`:     `schedule timezone`,
		`{"name": "x", "kind": "every", "expr": "10s", "timezone": "UTC", "title": "t"}`:           `once a minute`,
		`{"name": "x", "kind": "at", "expr": "2001-01-01 00:00", "timezone": "UTC", "title": "t"}`: `in the past`,
		`{"name": "x", "kind": "cron", "expr": "@daily", "timezone": "UTC", "title": " "}`:         `title`,
		`{"name": "Bad Name", "kind": "cron", "expr": "@daily", "timezone": "UTC", "title": "t"}`:  `schedule name`,
	} {
		r := e.api(t, http.MethodPost, "/api/projects/demo/schedules", body)
		wantStatus(t, r, http.StatusBadRequest)
		wantBody(t, r, want)
	}
	wantStatus(t, e.api(t, http.MethodPost, "/api/projects/demo/schedules", `{"name": "deps", "kind": "cron", "expr": "@daily", "timezone": "UTC", "title": "t"}`), http.StatusConflict)
	wantStatus(t, e.api(t, http.MethodGet, "/api/projects/nope/schedules", ""), http.StatusNotFound)

	r = e.api(t, http.MethodPatch, "/api/projects/demo/schedules/deps", `{"expr": "0 8 * * 1-5", "paused": true}`)
	wantStatus(t, r, http.StatusOK)
	r.json(t, &sc)
	if sc.Expr != "0 8 * * 1-5" || !sc.Paused {
		t.Errorf("edited %+v", sc)
	}
	r = e.api(t, http.MethodPost, "/api/projects/demo/schedules/deps/resume", "")
	wantStatus(t, r, http.StatusOK)
	r.json(t, &sc)
	if sc.Paused || sc.NextFire.IsZero() {
		t.Errorf("resumed %+v", sc)
	}
	r = e.api(t, http.MethodGet, "/api/projects/demo/schedules/deps", "")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"firings": []`, `"expr": "0 8 * * 1-5"`)
	wantStatus(t, e.api(t, http.MethodGet, "/api/projects/demo/schedules", ""), http.StatusOK)
	wantStatus(t, e.api(t, http.MethodDelete, "/api/projects/demo/schedules/deps", ""), http.StatusNoContent)
	wantStatus(t, e.api(t, http.MethodGet, "/api/projects/demo/schedules/deps", ""), http.StatusNotFound)
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestSchedulesPage_Form adds a schedule through the page's form, and
// shows a refused one's error with what was typed.
func TestSchedulesPage_Form(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	c := e.browser(t)
	r := e.post(t, c, "/p/demo/schedules", url.Values{"action": {"add"}, "name": {"deps"}, "kind": {"cron"}, "expr": {"0 9 * * 1"},
		"timezone": {"Asia/Shanghai"}, "title": {"Deps {week}"}, "priority": {"1"}, "startState": {"BACKLOG"}, "overlap": {"skip"}})
	wantStatus(t, r, http.StatusSeeOther)
	r = e.get(t, c, "/p/demo/schedules?done=Added+schedule+deps")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, "Added schedule deps", `id="schedule-deps"`, "CST", `class="viewer-zone"`)
	r = e.post(t, c, "/p/demo/schedules", url.Values{"action": {"add"}, "name": {"bad"}, "kind": {"cron"}, "expr": {"every monday"},
		"timezone": {"UTC"}, "title": {"x"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, `id="schedule-error"`, "schedule cron", `value="every monday"`)
}

// TestBrowser_Schedules drives the Schedules page in Chromium: open it
// from the board, add a schedule, see its next firing in its zone and the
// viewer's, pause and resume it, edit it, and follow a firing's link to
// its ticket.
func TestBrowser_Schedules(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	e := newEnv(t)
	e.project(t, "demo")
	ctx := newBrowser(t)
	// The viewer is in Shanghai, the schedule on Lord Howe Island.
	steps(t, ctx, "put the browser in Shanghai", func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Shanghai"})
		return chromedp.Void{}, err
	})
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))
	steps(t, ctx, "open the board", chromedp.Navigate(e.ts.URL+"/p/demo"), chromedp.WaitVisible(chromedp.CSS("#board")))
	clickID(t, ctx, "project-schedules-link")
	waitFor(t, ctx, "the Schedules page", `document.readyState === "complete" && !!document.getElementById("add-schedule") && !!document.getElementById("no-schedules")`)
	if zone := eval[string](t, ctx, `document.getElementById("new-tz").value`); zone != "Asia/Shanghai" {
		t.Errorf("the add form's zone is %q, not the browser's (Asia/Shanghai)", zone)
	}

	fill := `(() => {
		const set = (id, v) => { document.getElementById(id).value = v; };
		set("new-name", "deps"); set("new-kind", "cron"); set("new-expr", "0 9 * * 1");
		set("new-tz", "Australia/Lord_Howe"); set("new-title", "Deps {date}"); set("new-state", "RESEARCH");
		return true;
	})()`
	eval[bool](t, ctx, fill)
	clickID(t, ctx, "add-schedule-button")
	waitFor(t, ctx, "the schedule is listed", `document.readyState === "complete" && !!document.getElementById("schedule-deps")`)
	sc, err := e.db.Schedule(context.Background(), "demo", "deps")
	if err != nil || sc.StartState != board.Research || sc.TimeZone != "Australia/Lord_Howe" {
		t.Fatalf("stored %+v, %v", sc, err)
	}
	here := eval[string](t, ctx, `document.querySelector("#schedule-deps .next-here").textContent`)
	if !strings.Contains(here, "Mon") || !strings.Contains(here, "09:00") {
		t.Errorf("next firing in its zone = %q", here)
	}
	viewer := eval[string](t, ctx, `document.querySelector("#schedule-deps time.viewer-zone").textContent`)
	// Mon 09:00 on Lord Howe (+11) is Mon 06:00 in Shanghai (+8).
	if !strings.Contains(viewer, "(your time)") || !strings.Contains(viewer, "06:00") || !strings.Contains(viewer, "GMT+8") {
		t.Errorf("next firing in the viewer's zone = %q", viewer)
	}
	screenshot(t, ctx, "schedules")

	clickID(t, ctx, "pause-deps")
	waitFor(t, ctx, "paused", `document.readyState === "complete" && !!document.getElementById("resume-deps")`)
	if sc, _ := e.db.Schedule(context.Background(), "demo", "deps"); !sc.Paused {
		t.Fatal("not paused in the store")
	}
	clickID(t, ctx, "resume-deps")
	waitFor(t, ctx, "resumed", `document.readyState === "complete" && !!document.getElementById("pause-deps")`)

	// Edit: a bad expression is refused next to the form, then a good one saves.
	eval[bool](t, ctx, `(() => { document.getElementById("edit-deps").open = true; document.getElementById("e-deps-expr").value = "0 9 *"; return true; })()`)
	clickID(t, ctx, "save-deps")
	waitFor(t, ctx, "the error shows in the open edit form", `document.readyState === "complete" && document.getElementById("edit-deps").open && document.getElementById("schedule-error").textContent.includes("schedule cron") && document.getElementById("e-deps-expr").value === "0 9 *"`)
	eval[bool](t, ctx, `(() => { document.getElementById("e-deps-expr").value = "30 7 * * 1-5"; return true; })()`)
	clickID(t, ctx, "save-deps")
	waitFor(t, ctx, "saved", `document.readyState === "complete" && !!document.getElementById("schedule-notice") && document.querySelector("#schedule-deps code").textContent === "cron 30 7 * * 1-5"`)

	// A firing links to its ticket.
	sc, _ = e.db.Schedule(context.Background(), "demo", "deps")
	tk := board.Ticket{Title: "Deps 2026-12-01", State: board.Research}
	if _, err := e.db.FireSchedule(context.Background(), board.Fire{ScheduleID: sc.ID, DueAt: sc.NextFire, Next: sc.NextFire.Add(24 * time.Hour), Outcome: board.FiringCreated, Ticket: &tk}); err != nil {
		t.Fatal(err)
	}
	steps(t, ctx, "reload", chromedp.Reload())
	waitFor(t, ctx, "the firing is listed", `document.readyState === "complete" && !!document.querySelector('#schedule-deps .firings a[href="/p/demo/1"]')`)
	eval[bool](t, ctx, `(() => { document.querySelector('#schedule-deps .firings a').click(); return true; })()`)
	waitFor(t, ctx, "on the ticket page", `document.readyState === "complete" && location.pathname === "/p/demo/1"`)
}

// clickID clicks the element with the id once it exists.
func clickID(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	waitFor(t, ctx, "click #"+id, `(() => { const el = document.getElementById("`+id+`"); if (!el) return false; el.click(); return true; })()`)
}
