package storetest

import (
	"fmt"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// testRunControls reads the control of many runs at once: each as
// RunControl reads it, unknown IDs left out, and more runs than one batch
// holds.
func testRunControls(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	var (
		ids []string
		tks []board.Ticket
	)
	for range 3 {
		tk := ticketIn(t, s, "demo", board.InProgress)
		ids, tks = append(ids, mustStart(t, s, tk, board.TaskImplement).ID), append(tks, tk)
	}
	if _, err := s.RequestStop(ctx, tks[1].Ref(), "ana"); err != nil {
		t.Fatal(err)
	}
	clock.tick()
	cm := mustComment(t, s, tks[2].Ref(), board.Human, board.KindNote, "use the other API")

	// 600 IDs: more than one query's batch, most of them unknown.
	asked := append([]string{}, ids...)
	for i := range 597 {
		asked = append(asked, fmt.Sprintf("nope-%d", i))
	}
	got, err := s.RunControls(ctx, asked)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ids) {
		t.Fatalf("RunControls returned %d runs, want the %d that exist: %+v", len(got), len(ids), got)
	}
	for _, id := range ids {
		one, err := s.RunControl(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		c := got[id]
		if c.Status != one.Status || c.StopRequestedBy != one.StopRequestedBy || !c.LastHumanComment.Equal(one.LastHumanComment) ||
			(c.StopRequestedAt == nil) != (one.StopRequestedAt == nil) {
			t.Errorf("RunControls[%s] = %+v, want what RunControl reads: %+v", id, c, one)
		}
	}
	if c := got[ids[1]]; c.StopRequestedAt == nil || c.StopRequestedBy != "ana" {
		t.Errorf("the stopped run's control = %+v, want a stop by ana", c)
	}
	if c := got[ids[2]]; !c.LastHumanComment.Equal(cm.CreatedAt) {
		t.Errorf("the commented run's LastHumanComment = %v, want %v", c.LastHumanComment, cm.CreatedAt)
	}
	if c := got[ids[0]]; c.StopRequestedAt != nil || !c.LastHumanComment.IsZero() {
		t.Errorf("the quiet run's control = %+v, want no stop, no comment", c)
	}
	if none, err := s.RunControls(ctx, nil); err != nil || len(none) != 0 {
		t.Errorf("RunControls(nil) = %v, %v; want an empty map", none, err)
	}
}
