package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var scheduleCases = []testCase{
	{"CRUD", testScheduleCRUD},
	{"Due", testScheduleDue},
	{"Fire", testScheduleFire},
	{"FireTwice", testScheduleFireTwice},
	{"FireConcurrent", testScheduleFireConcurrent},
	{"Fail", testScheduleFail},
}

// newSchedule returns a valid schedule of project slug due at next.
func newSchedule(slug, name string, next time.Time) board.Schedule {
	return board.Schedule{ProjectSlug: slug, Name: name, Kind: "cron", Expr: "0 9 * * 1", TimeZone: "Europe/Berlin",
		Title: "Deps {date}", Description: "update them", Criteria: []string{"tests pass"}, Priority: 2, NextFire: next}
}

func mustSchedule(t *testing.T, s store.Store, sc board.Schedule) board.Schedule {
	t.Helper()
	got, err := s.CreateSchedule(t.Context(), sc, board.Human)
	if err != nil {
		t.Fatalf("CreateSchedule(%s): %v", sc.Name, err)
	}
	return got
}

// testScheduleCRUD creates, reads, lists, edits, pauses, resumes and
// deletes schedules, with their events and bad input.
func testScheduleCRUD(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	mustProject(t, s, "other")
	before := lastEventID(t, s)
	next := start.Add(time.Hour)
	sc := mustSchedule(t, s, newSchedule("demo", "deps", next))
	if sc.ID == "" || sc.StartState != board.Backlog || sc.Overlap != board.OverlapSkip || sc.CreatedBy != board.Human ||
		!sc.NextFire.Equal(next) || !sc.CreatedAt.Equal(start) {
		t.Errorf("CreateSchedule = %+v", sc)
	}
	wantEvents(t, s, before, board.EventScheduleCreated)
	got, err := s.Schedule(ctx, "demo", "deps")
	if err != nil || got.ID != sc.ID || got.Title != "Deps {date}" || len(got.Criteria) != 1 || !got.NextFire.Equal(next) ||
		got.TimeZone != "Europe/Berlin" || got.Expr != "0 9 * * 1" {
		t.Errorf("Schedule = %+v, %v", got, err)
	}
	mustSchedule(t, s, newSchedule("other", "deps", next))
	mustSchedule(t, s, newSchedule("demo", "audit", time.Time{}))

	_, err = s.CreateSchedule(ctx, newSchedule("demo", "deps", next), board.Human)
	wantCode(t, err, board.ECONFLICT, "already has a schedule")
	_, err = s.CreateSchedule(ctx, newSchedule("nope", "deps", next), board.Human)
	wantCode(t, err, board.ENOTFOUND, "")
	bad := newSchedule("demo", "Bad Name", next)
	_, err = s.CreateSchedule(ctx, bad, board.Human)
	wantCode(t, err, board.EINVALID, "schedule name")
	bad = newSchedule("demo", "x", next)
	bad.StartState = board.Done
	_, err = s.CreateSchedule(ctx, bad, board.Human)
	wantCode(t, err, board.EINVALID, "start state")
	bad = newSchedule("demo", "x", next)
	bad.Title = " "
	_, err = s.CreateSchedule(ctx, bad, board.Human)
	wantCode(t, err, board.EINVALID, "title")
	_, err = s.Schedule(ctx, "demo", "nope")
	wantCode(t, err, board.ENOTFOUND, "no schedule")

	all, err := s.ScheduleList(ctx, store.ScheduleFilter{})
	if err != nil || len(all) != 3 || all[0].Name != "audit" || all[1].Name != "deps" || all[2].ProjectSlug != "other" {
		t.Errorf("ScheduleList = %+v, %v", all, err)
	}
	demo, err := s.ScheduleList(ctx, store.ScheduleFilter{ProjectSlug: "demo"})
	if err != nil || len(demo) != 2 {
		t.Errorf("ScheduleList(demo) = %d, %v", len(demo), err)
	}
	_, err = s.ScheduleList(ctx, store.ScheduleFilter{ProjectSlug: "nope"})
	wantCode(t, err, board.ENOTFOUND, "")

	clock.tick()
	before = lastEventID(t, s)
	paused, title := true, "Weekly deps {week}"
	up, err := s.UpdateSchedule(ctx, "demo", "deps", board.SchedulePatch{Paused: &paused, Title: &title}, board.Human)
	if err != nil || !up.Paused || up.Title != title || !up.UpdatedAt.After(up.CreatedAt) {
		t.Errorf("UpdateSchedule = %+v, %v", up, err)
	}
	wantEvents(t, s, before, board.EventScheduleUpdated)
	// A patch that changes nothing writes nothing.
	before = lastEventID(t, s)
	if _, err := s.UpdateSchedule(ctx, "demo", "deps", board.SchedulePatch{Paused: &paused}, board.Human); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, s, before)
	resumed, later := false, start.Add(2*time.Hour)
	up, err = s.UpdateSchedule(ctx, "demo", "deps", board.SchedulePatch{Paused: &resumed, NextFire: &later}, board.Human)
	if err != nil || up.Paused || !up.NextFire.Equal(later) {
		t.Errorf("resume = %+v, %v", up, err)
	}
	badState := board.Verification
	_, err = s.UpdateSchedule(ctx, "demo", "deps", board.SchedulePatch{StartState: &badState}, board.Human)
	wantCode(t, err, board.EINVALID, "start state")

	before = lastEventID(t, s)
	if err := s.DeleteSchedule(ctx, "demo", "deps", board.Human); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, s, before, board.EventScheduleDeleted)
	wantCode(t, s.DeleteSchedule(ctx, "demo", "deps", board.Human), board.ENOTFOUND, "")
	if got, _ := s.Schedule(ctx, "other", "deps"); got.Name != "deps" {
		t.Error("deleting demo/deps removed other/deps")
	}
}

// testScheduleDue finds the due schedules: not paused, not in archived
// projects, not without a next time, oldest first.
func testScheduleDue(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	mustProject(t, s, "old")
	mustSchedule(t, s, newSchedule("demo", "later", start.Add(time.Minute)))
	mustSchedule(t, s, newSchedule("demo", "now", start))
	mustSchedule(t, s, newSchedule("demo", "earlier", start.Add(-time.Hour)))
	mustSchedule(t, s, newSchedule("demo", "never", time.Time{}))
	p := newSchedule("demo", "paused", start.Add(-time.Hour))
	p.Paused = true
	mustSchedule(t, s, p)
	mustSchedule(t, s, newSchedule("old", "archived", start.Add(-time.Hour)))
	if _, err := s.ArchiveProject(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	due, err := s.DueSchedules(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range due {
		names = append(names, d.Name)
	}
	if len(names) != 2 || names[0] != "earlier" || names[1] != "now" {
		t.Errorf("DueSchedules = %v, want [earlier now]", names)
	}
}

// testScheduleFire creates the ticket, moves the schedule on, records the
// firing and its event, and remembers the ticket for the overlap rule.
func testScheduleFire(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	sc := newSchedule("demo", "deps", start)
	sc.StartState = board.Research
	sc = mustSchedule(t, s, sc)
	clock.tick()
	before := lastEventID(t, s)
	next := start.Add(7 * 24 * time.Hour)
	tk := board.Ticket{Title: "Deps 2026-03-02", Description: "update them", Criteria: []string{"tests pass"}, Priority: 1, State: board.Research}
	fr, err := s.FireSchedule(ctx, board.Fire{ScheduleID: sc.ID, DueAt: start, Next: next, Outcome: board.FiringCreated, Ticket: &tk})
	if err != nil {
		t.Fatal(err)
	}
	if fr.ID == 0 || fr.Ticket != 1 || fr.Outcome != board.FiringCreated || !fr.DueAt.Equal(start) || !fr.FiredAt.Equal(start.Add(time.Millisecond)) {
		t.Errorf("FireSchedule = %+v", fr)
	}
	wantEvents(t, s, before, board.EventTicketCreated, board.EventScheduleFired)
	got := mustGet(t, s, board.Ref{Project: "demo", Number: 1})
	if got.Title != tk.Title || got.State != board.Research || got.Priority != 1 || len(got.Criteria) != 1 {
		t.Errorf("ticket = %+v", got)
	}
	sc, _ = s.Schedule(ctx, "demo", "deps")
	if !sc.NextFire.Equal(next) || sc.LastTicket != 1 || sc.LastTicketState != board.Research || !sc.Overlaps() {
		t.Errorf("schedule after firing = %+v", sc)
	}
	// A skipped firing moves the time on and keeps the last ticket.
	fr, err = s.FireSchedule(ctx, board.Fire{ScheduleID: sc.ID, DueAt: next, Next: next.Add(time.Hour), Outcome: board.FiringOverlap, Detail: "demo#1 is not DONE"})
	if err != nil || fr.Ticket != 0 {
		t.Fatalf("skip = %+v, %v", fr, err)
	}
	sc, _ = s.Schedule(ctx, "demo", "deps")
	if sc.LastTicket != 1 || !sc.NextFire.Equal(next.Add(time.Hour)) {
		t.Errorf("after skip = %+v", sc)
	}
	// The last firing of an "at": no next time, never due again.
	if _, err := s.FireSchedule(ctx, board.Fire{ScheduleID: sc.ID, DueAt: next.Add(time.Hour), Outcome: board.FiringAsleep}); err != nil {
		t.Fatal(err)
	}
	sc, _ = s.Schedule(ctx, "demo", "deps")
	if !sc.NextFire.IsZero() {
		t.Errorf("NextFire = %s, want none", sc.NextFire)
	}
	if due, _ := s.DueSchedules(ctx, start.Add(365*24*time.Hour)); len(due) != 0 {
		t.Errorf("due after its last firing: %+v", due)
	}
	frs, err := s.Firings(ctx, "demo", "deps", 0)
	if err != nil || len(frs) != 3 || frs[0].Outcome != board.FiringAsleep || frs[1].Detail != "demo#1 is not DONE" || frs[2].Ticket != 1 {
		t.Errorf("Firings = %+v, %v", frs, err)
	}
	if frs, _ := s.Firings(ctx, "demo", "deps", 1); len(frs) != 1 {
		t.Errorf("Firings limit 1 = %d", len(frs))
	}
	_, err = s.FireSchedule(ctx, board.Fire{ScheduleID: "nope", DueAt: start, Outcome: board.FiringAsleep})
	wantCode(t, err, board.ENOTFOUND, "")
}

// testScheduleFireTwice refuses a firing whose due time has moved on or
// whose schedule was paused, and writes nothing for it.
func testScheduleFireTwice(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	sc := mustSchedule(t, s, newSchedule("demo", "deps", start))
	tk := board.Ticket{Title: "Deps"}
	f := board.Fire{ScheduleID: sc.ID, DueAt: start, Next: start.Add(time.Hour), Outcome: board.FiringCreated, Ticket: &tk}
	if _, err := s.FireSchedule(ctx, f); err != nil {
		t.Fatal(err)
	}
	before := lastEventID(t, s)
	tk2 := board.Ticket{Title: "Deps"}
	f.Ticket = &tk2
	_, err := s.FireSchedule(ctx, f)
	wantCode(t, err, board.ECONFLICT, "no longer due")
	wantEvents(t, s, before)
	paused := true
	if _, err := s.UpdateSchedule(ctx, "demo", "deps", board.SchedulePatch{Paused: &paused}, board.Human); err != nil {
		t.Fatal(err)
	}
	_, err = s.FireSchedule(ctx, board.Fire{ScheduleID: sc.ID, DueAt: start.Add(time.Hour), Outcome: board.FiringAsleep})
	wantCode(t, err, board.ECONFLICT, "")
	if n, _ := s.CountTickets(ctx, store.TicketFilter{ProjectSlug: "demo"}); n != 1 {
		t.Errorf("%d tickets, want 1", n)
	}
}

// testScheduleFireConcurrent fires one due schedule from many goroutines:
// exactly one wins.
func testScheduleFireConcurrent(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	sc := mustSchedule(t, s, newSchedule("demo", "deps", start))
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Go(func() {
			tk := board.Ticket{Title: "Deps"}
			_, err := s.FireSchedule(t.Context(), board.Fire{ScheduleID: sc.ID, DueAt: start, Next: start.Add(time.Hour), Outcome: board.FiringCreated, Ticket: &tk})
			if err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			} else if board.ErrorCode(err) != board.ECONFLICT {
				t.Errorf("FireSchedule: %v", err)
			}
		})
	}
	wg.Wait()
	if n, _ := s.CountTickets(t.Context(), store.TicketFilter{ProjectSlug: "demo"}); wins != 1 || n != 1 {
		t.Errorf("%d firings won, %d tickets; want 1 and 1", wins, n)
	}
}

// testScheduleFail counts pre-check failures, backs off to the caller's
// time, notifies on the first of a streak only, and a firing ends the
// streak.
func testScheduleFail(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	mustChannel(t, s, board.Channel{Name: "hook", Settings: map[string]string{"url": "https://example.com/h"}})
	sc := mustSchedule(t, s, newSchedule("demo", "deps", start))
	due := start
	for i := 1; i <= 3; i++ {
		retry := due.Add(board.PreCheckBackoff(i))
		before := lastEventID(t, s)
		fr, err := s.FailSchedule(ctx, board.Fire{ScheduleID: sc.ID, DueAt: due, Next: retry, Detail: "exit status 1"})
		if err != nil || fr.Outcome != board.FiringFailed {
			t.Fatalf("FailSchedule %d = %+v, %v", i, fr, err)
		}
		wantEvents(t, s, before, board.EventScheduleFailed)
		got, _ := s.Schedule(ctx, "demo", "deps")
		if got.Failures != i || got.LastError != "exit status 1" || !got.NextFire.Equal(retry) {
			t.Errorf("after failure %d: %+v", i, got)
		}
		due = retry
	}
	ns := notificationsOf(t, s, "hook")
	if len(ns) != 1 || ns[0].Kind != board.NotifyRunFailed {
		t.Errorf("notifications = %+v, want one run_failed", ns)
	}
	if _, err := s.FireSchedule(ctx, board.Fire{ScheduleID: sc.ID, DueAt: due, Next: due.Add(time.Hour), Outcome: board.FiringAsleep}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Schedule(ctx, "demo", "deps"); got.Failures != 0 || got.LastError != "" {
		t.Errorf("a firing did not end the streak: %+v", got)
	}
	if d := []time.Duration{board.PreCheckBackoff(0), board.PreCheckBackoff(1), board.PreCheckBackoff(2), board.PreCheckBackoff(3), board.PreCheckBackoff(4), board.PreCheckBackoff(5), board.PreCheckBackoff(9)}; d[0] != 30*time.Second ||
		d[1] != 30*time.Second || d[2] != time.Minute || d[3] != 5*time.Minute || d[4] != 15*time.Minute || d[5] != time.Hour || d[6] != time.Hour {
		t.Errorf("backoff = %v", d)
	}
}
