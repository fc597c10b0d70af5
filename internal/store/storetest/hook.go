package storetest

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var hookCases = []testCase{
	{"CreateReadDelete", testHookCRUD},
	{"DeliveryOnce", testHookDeliveryOnce},
	{"DeliveryLogCapped", testHookDeliveryLogCapped},
	{"TrackerLimit", testTrackerLimit},
}

func newHook(name, project string) board.Hook {
	return board.Hook{Name: name, ProjectSlug: project, Scheme: board.HookGitHub, Secret: "sealed:v1:abc", Action: board.HookTicket,
		Events: []string{"issues.labeled"}, When: map[string]string{"label.name": "bonsai"}, Title: "{{issue.title}}",
		Description: "{{issue.body}}", Criteria: []string{"{{issue.html_url}} closes"}, Priority: 2, State: board.Research}
}

func testHookCRUD(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	in := newHook("gh", "demo")
	h, err := s.CreateHook(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if h.ID == "" || !h.CreatedAt.Equal(clock.Now()) {
		t.Errorf("created hook %+v", h)
	}
	got, err := s.Hook(ctx, "gh")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "hook read back", got, h)
	_, err = s.CreateHook(ctx, in)
	wantCode(t, err, board.ECONFLICT, "gh")
	_, err = s.CreateHook(ctx, newHook("other", "nope"))
	wantCode(t, err, board.ENOTFOUND, "nope")
	bad := newHook("bad", "demo")
	bad.Secret = ""
	_, err = s.CreateHook(ctx, bad)
	wantCode(t, err, board.EINVALID, "secret")
	sync := board.Hook{Name: "a-sync", ProjectSlug: "demo", Scheme: board.HookGitLab, Secret: "x", Action: board.HookSync}
	if _, err := s.CreateHook(ctx, sync); err != nil {
		t.Fatal(err)
	}
	list, err := s.HookList(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "a-sync" || list[1].Name != "gh" || len(list[0].When) != 0 {
		t.Fatalf("HookList = %+v, %v", list, err)
	}
	if _, err := s.StartDelivery(ctx, board.HookDelivery{HookName: "gh", DeliveryID: "d1", Outcome: board.DeliveryReceived}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteHook(ctx, "gh"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Hook(ctx, "gh")
	wantCode(t, err, board.ENOTFOUND, "gh")
	wantCode(t, s.DeleteHook(ctx, "gh"), board.ENOTFOUND, "gh")
	if ds, err := s.HookDeliveries(ctx, "", 0); err != nil || len(ds) != 0 {
		t.Errorf("deliveries after the hook went = %+v, %v", ds, err)
	}
}

func testHookDeliveryOnce(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	if _, err := s.CreateHook(ctx, newHook("gh", "demo")); err != nil {
		t.Fatal(err)
	}
	d, err := s.StartDelivery(ctx, board.HookDelivery{HookName: "gh", DeliveryID: "d1", Event: "issues.labeled",
		Status: 202, Outcome: board.DeliveryReceived, Size: 1234})
	if err != nil {
		t.Fatal(err)
	}
	if d.ID == 0 || !d.ReceivedAt.Equal(clock.Now()) || !d.FinishedAt.IsZero() {
		t.Errorf("started delivery %+v", d)
	}
	_, err = s.StartDelivery(ctx, board.HookDelivery{HookName: "gh", DeliveryID: "d1", Outcome: board.DeliveryReceived})
	wantCode(t, err, board.ECONFLICT, "d1")
	clock.tick()
	done, err := s.FinishDelivery(ctx, board.HookDelivery{ID: d.ID, Status: 201, Outcome: board.DeliveryDone, Detail: "created demo#1", Ticket: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := d
	want.Status, want.Outcome, want.Detail, want.Ticket, want.FinishedAt = 201, board.DeliveryDone, "created demo#1", 1, clock.Now()
	same(t, "finished delivery", done, want)
	// A failed delivery is received again by its redelivery.
	f, err := s.StartDelivery(ctx, board.HookDelivery{HookName: "gh", DeliveryID: "d2", Outcome: board.DeliveryReceived})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishDelivery(ctx, board.HookDelivery{ID: f.ID, Status: 500, Outcome: board.DeliveryFailed, Detail: "board down"}); err != nil {
		t.Fatal(err)
	}
	again, err := s.StartDelivery(ctx, board.HookDelivery{HookName: "gh", DeliveryID: "d2", Outcome: board.DeliveryReceived})
	if err != nil || again.ID != f.ID {
		t.Fatalf("redelivery of a failed delivery = %+v, %v; want it received again as %d", again, err, f.ID)
	}
	// Deliveries without an id (refused before reading) are all kept.
	for range 2 {
		if _, err := s.StartDelivery(ctx, board.HookDelivery{HookName: "gh", Status: 401, Outcome: board.DeliveryRefused,
			Detail: "bad signature"}); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := s.HookDeliveries(ctx, "gh", 0)
	if err != nil || len(ds) != 4 || ds[0].Outcome != board.DeliveryRefused || ds[0].FinishedAt.IsZero() || ds[3].ID != d.ID {
		t.Fatalf("HookDeliveries = %+v, %v", ds, err)
	}
	_, err = s.StartDelivery(ctx, board.HookDelivery{HookName: "nope", Outcome: board.DeliveryReceived})
	wantCode(t, err, board.ENOTFOUND, "nope")
	_, err = s.FinishDelivery(ctx, board.HookDelivery{ID: 9999, Outcome: board.DeliveryDone})
	wantCode(t, err, board.ENOTFOUND, "9999")
}

func testHookDeliveryLogCapped(t *testing.T, s store.Store, _ *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	if _, err := s.CreateHook(ctx, newHook("gh", "demo")); err != nil {
		t.Fatal(err)
	}
	for range store.MaxDeliveries + 5 {
		if _, err := s.StartDelivery(ctx, board.HookDelivery{HookName: "gh", Status: 401, Outcome: board.DeliveryRefused}); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := s.HookDeliveries(ctx, "gh", 1000)
	if err != nil || len(ds) != store.MaxDeliveries {
		t.Fatalf("log holds %d deliveries, %v; want %d", len(ds), err, store.MaxDeliveries)
	}
}

func testTrackerLimit(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	got, err := s.TrackerLimit(ctx, "demo")
	if err != nil || got != (board.TrackerLimit{ProjectSlug: "demo"}) {
		t.Fatalf("TrackerLimit before any = %+v, %v", got, err)
	}
	until := clock.Now().Add(30 * time.Minute)
	in := board.TrackerLimit{ProjectSlug: "demo", Tracker: board.TrackerGitHub, Until: until, Detail: "403 API rate limit exceeded"}
	saved, err := s.SaveTrackerLimit(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.UpdatedAt = clock.Now()
	same(t, "saved limit", saved, want)
	got, _ = s.TrackerLimit(ctx, "demo")
	same(t, "limit read back", got, want)
	if _, err := s.SaveTrackerLimit(ctx, board.TrackerLimit{ProjectSlug: "demo"}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.TrackerLimit(ctx, "demo")
	if !got.Until.IsZero() {
		t.Errorf("limit after removal %+v", got)
	}
	// The token's login is kept without a limit.
	clock.tick()
	if _, err := s.SaveTrackerLimit(ctx, board.TrackerLimit{ProjectSlug: "demo", Tracker: board.TrackerGitHub, Login: "bonsai-bot",
		TokenSum: "abc123"}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.TrackerLimit(ctx, "demo")
	same(t, "login read back", got, board.TrackerLimit{ProjectSlug: "demo", Tracker: board.TrackerGitHub, Login: "bonsai-bot",
		TokenSum: "abc123", UpdatedAt: clock.Now()})
	_, err = s.TrackerLimit(ctx, "nope")
	wantCode(t, err, board.ENOTFOUND, "nope")
	_, err = s.SaveTrackerLimit(ctx, board.TrackerLimit{ProjectSlug: "nope", Until: until})
	wantCode(t, err, board.ENOTFOUND, "nope")
}
