package heartbeat_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

var monday9 = time.Date(2026, time.November, 30, 8, 0, 0, 0, time.UTC) // 09:00 in Berlin

func (e *env) clock(t time.Time) *testClock {
	c := &testClock{now: t}
	e.opts.Now = c.Now
	return c
}

func (e *env) schedule(s board.Schedule) board.Schedule {
	e.t.Helper()
	if s.Kind == "" {
		s.Kind, s.Expr = "cron", "0 9 * * *"
	}
	if s.TimeZone == "" {
		s.TimeZone = "Europe/Berlin"
	}
	if s.Title == "" {
		s.Title = "Deps {date}"
	}
	if s.StartState == "" {
		s.StartState = board.InProgress
	}
	s.Priority = 2
	got, err := e.db.CreateSchedule(context.Background(), s, board.Human)
	if err != nil {
		e.t.Fatal(err)
	}
	return got
}

func (e *env) sched(slug, name string) board.Schedule {
	e.t.Helper()
	s, err := e.db.Schedule(context.Background(), slug, name)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *env) tickets(slug string) []board.Ticket {
	e.t.Helper()
	ts, err := e.db.Tickets(context.Background(), store.TicketFilter{ProjectSlug: slug})
	if err != nil {
		e.t.Fatal(err)
	}
	return ts
}

// A due schedule fires before the pick: its ticket is worked in the same
// beat, and the schedule moves to its next window.
func TestSchedule_FiresAndIsWorked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.clock(monday9.Add(time.Minute))
	e.project("demo", nil)
	e.schedule(board.Schedule{ProjectSlug: "demo", Name: "deps", NextFire: monday9, Description: "Update the deps."})
	rep := e.beat()
	if len(rep.Fired) != 1 || rep.Fired[0].Outcome != board.FiringCreated || rep.Fired[0].Ticket != "demo#1" {
		t.Fatalf("fired = %+v", rep.Fired)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Ticket != "demo#1" {
		t.Fatalf("runs = %+v", rep.Runs)
	}
	tk := e.get(board.Ref{Project: "demo", Number: 1})
	if tk.Title != "Deps 2026-11-30" || tk.Description != "Update the deps." {
		t.Errorf("ticket = %q / %q", tk.Title, tk.Description)
	}
	if s := e.sched("demo", "deps"); !s.NextFire.Equal(monday9.Add(24*time.Hour)) || s.LastTicket != 1 {
		t.Errorf("schedule after = next %s, last %d", s.NextFire, s.LastTicket)
	}
}

// Windows missed while the machine was off fire once, not in a burst.
func TestSchedule_MissedWindowsFireOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	now := monday9.Add(72*time.Hour + 30*time.Minute)
	e.clock(now)
	e.project("demo", nil)
	e.schedule(board.Schedule{ProjectSlug: "demo", Name: "hourly", Kind: "every", Expr: "1h", Anchor: monday9, NextFire: monday9, Overlap: board.OverlapAlways})
	h, err := heartbeat.New(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	if reps := h.FireDue(context.Background()); len(reps) != 1 {
		t.Fatalf("fired %+v", reps)
	}
	if reps := h.FireDue(context.Background()); len(reps) != 0 {
		t.Fatalf("fired again %+v", reps)
	}
	if n := len(e.tickets("demo")); n != 1 {
		t.Errorf("%d tickets, want 1", n)
	}
	if s := e.sched("demo", "hourly"); !s.NextFire.Equal(now.Add(30 * time.Minute)) {
		t.Errorf("next fire %s, want %s", s.NextFire, now.Add(30*time.Minute))
	}
}

// skip makes no new ticket while the previous one is not DONE; always does.
func TestSchedule_Overlap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.clock(monday9)
	e.project("demo", nil)
	e.schedule(board.Schedule{ProjectSlug: "demo", Name: "skip", NextFire: monday9, StartState: board.Backlog})
	e.schedule(board.Schedule{ProjectSlug: "demo", Name: "always", NextFire: monday9, StartState: board.Backlog, Overlap: board.OverlapAlways})
	h, err := heartbeat.New(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	h.FireDue(context.Background())
	c.set(monday9.Add(24 * time.Hour))
	reps := h.FireDue(context.Background())
	byName := map[string]heartbeat.FireReport{}
	for _, r := range reps {
		byName[r.Schedule] = r
	}
	if r := byName["demo/skip"]; r.Outcome != board.FiringOverlap || !strings.Contains(r.Detail, "BACKLOG") {
		t.Errorf("skip: %+v", r)
	}
	if r := byName["demo/always"]; r.Outcome != board.FiringCreated {
		t.Errorf("always: %+v", r)
	}
	if n := len(e.tickets("demo")); n != 3 {
		t.Errorf("%d tickets, want 3", n)
	}
	// Once the skipped schedule's ticket is DONE, it fires again.
	skip := e.sched("demo", "skip")
	ref := board.Ref{Project: "demo", Number: skip.LastTicket}
	for _, to := range []board.State{board.InProgress, board.Verification, board.Done} {
		actor := board.Human
		if to == board.Verification {
			actor = board.Agent
		}
		if _, err := e.db.MoveTicket(context.Background(), ref, board.MoveRequest{To: to, Actor: actor}, "t"); err != nil {
			t.Fatal(err)
		}
	}
	c.set(monday9.Add(48 * time.Hour))
	for _, r := range h.FireDue(context.Background()) {
		if r.Schedule == "demo/skip" && r.Outcome != board.FiringCreated {
			t.Errorf("skip after DONE: %+v", r)
		}
	}
}

// A pre-check runs in a checkout of the default branch: wake:false records the firing
// and creates nothing, wake:true appends its data, a failure backs off.
func TestSchedule_PreCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.clock(monday9)
	e.project("demo", nil)
	e.schedule(board.Schedule{ProjectSlug: "demo", Name: "asleep", NextFire: monday9,
		PreCheck: `test -f README.md && echo noise && echo '{"wake": false}'`})
	e.schedule(board.Schedule{ProjectSlug: "demo", Name: "awake", NextFire: monday9, Description: "Triage.",
		PreCheck: `echo '{"wake": true, "data": {"issues": [7, 9]}}'`})
	e.schedule(board.Schedule{ProjectSlug: "demo", Name: "broken", NextFire: monday9, PreCheck: `echo oops; exit 3`})
	e.schedule(board.Schedule{ProjectSlug: "demo", Name: "garbled", NextFire: monday9, PreCheck: `echo not json`})
	rep := e.beat()
	got := map[string]heartbeat.FireReport{}
	for _, r := range rep.Fired {
		got[r.Schedule] = r
	}
	if r := got["demo/asleep"]; r.Outcome != board.FiringAsleep || r.Ticket != "" {
		t.Errorf("asleep: %+v", r)
	}
	if r := got["demo/awake"]; r.Outcome != board.FiringCreated {
		t.Errorf("awake: %+v", r)
	}
	if r := got["demo/broken"]; r.Outcome != board.FiringFailed || !strings.Contains(r.Detail, "exit status 3") {
		t.Errorf("broken: %+v", r)
	}
	if r := got["demo/garbled"]; r.Outcome != board.FiringFailed || !strings.Contains(r.Detail, `"wake"`) {
		t.Errorf("garbled: %+v", r)
	}
	ts := e.tickets("demo")
	if len(ts) != 1 || !strings.Contains(ts[0].Description, "Triage.\n\n## Pre-check\n\n```json") || !strings.Contains(ts[0].Description, `"issues"`) {
		t.Fatalf("tickets = %+v", ts)
	}
	if len(e.runner.calls()) != 1 {
		t.Errorf("%d agent runs, want 1 (the awake ticket's)", len(e.runner.calls()))
	}
	b := e.sched("demo", "broken")
	if b.Failures != 1 || !b.NextFire.Equal(monday9.Add(30*time.Second)) || !strings.Contains(b.LastError, "exit status 3") {
		t.Errorf("broken after one failure: %+v", b)
	}
	c.set(monday9.Add(31 * time.Second))
	e.beat()
	if b := e.sched("demo", "broken"); b.Failures != 2 || !b.NextFire.Equal(monday9.Add(91*time.Second)) {
		t.Errorf("broken after two failures: failures %d, next %s", b.Failures, b.NextFire)
	}
	if a := e.sched("demo", "asleep"); !a.NextFire.Equal(monday9.Add(24 * time.Hour)) {
		t.Errorf("asleep next %s", a.NextFire)
	}
}

func TestParsePreCheck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		out  string
		wake bool
		data string
		bad  bool
	}{
		{`{"wake": true}`, true, "", false},
		{"log\n{\"wake\": true, \"data\": \"3 new issues\"}\n\n", true, "3 new issues", false},
		{`{"wake": false, "data": null}`, false, "", false},
		{`{"data": 1}`, false, "", true},
		{``, false, "", true},
		{`{"wake": "yes"}`, false, "", true},
	} {
		wake, data, err := heartbeat.ParsePreCheck(c.out)
		if (err != nil) != c.bad || wake != c.wake || data != c.data {
			t.Errorf("ParsePreCheck(%q) = %v, %q, %v", c.out, wake, data, err)
		}
	}
}

// Two beats firing at once, each through its own database connection,
// fire each due schedule exactly once: 200 races. In 60–80% of them (as
// measured, on a loaded machine too) the beats really overlap and one
// reports the firing lost; the test checks that some did and that each
// beat won some (1,000 races were 7 s of CPU under -race).
func TestSchedule_ConcurrentBeatsFireOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.clock(monday9)
	e.project("demo", nil)
	other, err := sqlite.Open(context.Background(), filepath.Join(e.data, "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	a, err := heartbeat.New(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	opts := e.opts
	opts.Store = other
	b, err := heartbeat.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	runs := 200
	if testing.Short() {
		runs = 50
	}
	lost, won := 0, map[string]int{}
	for i := range runs {
		e.schedule(board.Schedule{ProjectSlug: "demo", Name: "race-" + strconv.Itoa(i), NextFire: monday9, Overlap: board.OverlapAlways})
		var wg sync.WaitGroup
		var ra, rb []heartbeat.FireReport
		wg.Go(func() { ra = a.FireDue(context.Background()) })
		wg.Go(func() { rb = b.FireDue(context.Background()) })
		wg.Wait()
		created := 0
		for beat, rs := range map[string][]heartbeat.FireReport{"a": ra, "b": rb} {
			for _, r := range rs {
				if r.Outcome == board.FiringCreated {
					created++
					won[beat]++
				} else if !r.Lost {
					t.Fatalf("run %d: %+v", i, r)
				} else {
					lost++
				}
			}
		}
		if created != 1 {
			t.Fatalf("run %d: %d firings created a ticket (%+v %+v), want 1", i, created, ra, rb)
		}
	}
	if n := len(e.tickets("demo")); n != runs {
		t.Errorf("%d tickets after %d races, want %d", n, runs, runs)
	}
	if lost == 0 || won["a"] == 0 || won["b"] == 0 {
		t.Errorf("in %d races the beats never overlapped both ways (%d lost, won %v): the test proves little", runs, lost, won)
	}
}

// Only agents of projects with ScheduleTools on get the schedule tools.
func TestSchedule_ToolsOnlyWhereAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("on", func(p *board.Project) { p.Agent.ScheduleTools = true })
	e.project("off", nil)
	e.ticket("on", "Work", board.InProgress)
	e.ticket("off", "Work", board.InProgress)
	e.beat()
	got := map[string]bool{}
	for _, j := range e.runner.calls() {
		for _, tl := range j.Tools {
			if strings.HasPrefix(tl.Name(), "schedule_") {
				got[j.Project.Slug+" "+tl.Name()] = true
			}
		}
	}
	if len(got) != 3 || !got["on schedule_create"] || !got["on schedule_list"] || !got["on schedule_cancel"] {
		t.Errorf("schedule tools offered: %v; want the three, in project on only", got)
	}
}
