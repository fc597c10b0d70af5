package boardcopy_test

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// fillHooks adds a hook and two deliveries to the test board.
func fillHooks(t *testing.T, s store.Store) {
	ctx := t.Context()
	_, err := s.CreateHook(ctx, board.Hook{Name: "gh", ProjectSlug: "demo", Scheme: board.HookGitHub, Secret: "sealed:v1:xyz",
		Action: board.HookTicket, Events: []string{"issues.labeled"}, When: map[string]string{"label.name": "bonsai"},
		Title: "{{issue.title}}", Criteria: []string{"ok"}, Priority: 1})
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.StartDelivery(ctx, board.HookDelivery{HookName: "gh", DeliveryID: "abc", Event: "issues.labeled",
		Outcome: board.DeliveryReceived, Size: 99})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishDelivery(ctx, board.HookDelivery{ID: d.ID, Status: 201, Outcome: board.DeliveryDone, Detail: "created", Ticket: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartDelivery(ctx, board.HookDelivery{HookName: "gh", Status: 401, Outcome: board.DeliveryRefused}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveTrackerLimit(ctx, board.TrackerLimit{ProjectSlug: "demo", Tracker: board.TrackerGitHub,
		Until: time.Now().Add(time.Hour), Detail: "rate limited"}); err != nil {
		t.Fatal(err)
	}
}
