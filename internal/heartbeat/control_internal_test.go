package heartbeat

import (
	"context"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestRunControl_Steer hands the human comments the agent has not seen to
// the runner once, and waits while no runner listens.
func TestRunControl_Steer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	run := u.startRun(t)
	seen := &seenComments{}
	old, err := u.db.AddComment(ctx, u.ticket.Ref(), board.Comment{AuthorType: board.Human, AuthorName: "ana", Kind: board.KindNote, Content: "seen"})
	if err != nil {
		t.Fatal(err)
	}
	seen.add(old.ID)
	fresh, err := u.db.AddComment(ctx, u.ticket.Ref(), board.Comment{AuthorType: board.Human, AuthorName: "ana", Kind: board.KindNote, Content: "use v2"})
	if err != nil {
		t.Fatal(err)
	}
	rc := runControl{store: u.db, runID: run.ID, ref: u.ticket.Ref(), seen: seen, log: u.log}
	steer := &Steering{}
	if rc.steer(ctx, steer) {
		t.Fatal("steer reported comments handled with no runner attached")
	}
	var got []board.Comment
	steer.Attach(func(cs []board.Comment) { got = append(got, cs...) })
	if !rc.steer(ctx, steer) || !rc.steer(ctx, steer) {
		t.Fatal("steer did not report the comments handled")
	}
	if len(got) != 1 || got[0].ID != fresh.ID || !seen.has(fresh.ID) {
		t.Fatalf("steered %+v, want the new comment once, then seen", got)
	}
}

// TestRunControl_Stop cancels the run with a *StoppedError naming who
// stopped it.
func TestRunControl_Stop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	run := u.startRun(t)
	if _, err := u.db.RequestStop(ctx, u.ticket.Ref(), "ana"); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := &controlWatcher{store: u.db, poll: time.Millisecond, log: u.log}
	rc := runControl{store: u.db, runID: run.ID, ref: u.ticket.Ref(), seen: &seenComments{}, log: u.log}
	unwatch := w.watch(runCtx, rc, cancel, &Steering{})
	defer unwatch()
	select {
	case <-runCtx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the stop request did not cancel the run within a minute")
	}
	s, ok := stopped(runCtx)
	if !ok || s.By != "ana" {
		t.Fatalf("after a stop request the run's cause is %v, want stopped by ana", context.Cause(runCtx))
	}
}
