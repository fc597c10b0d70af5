package storetest

import (
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

func testRunStop(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)

	_, err := s.RequestStop(ctx, tk.Ref(), "ana")
	wantCode(t, err, board.ECONFLICT, "never run")

	r := mustStart(t, s, tk, board.TaskImplement)
	clock.tick()
	before := lastEventID(t, s)
	got, err := s.RequestStop(ctx, tk.Ref(), "ana")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != r.ID {
		t.Errorf("RequestStop stopped run %s, want the running %s", got.ID, r.ID)
	}
	es := wantEvents(t, s, before, board.EventRunStopRequested)
	if len(es) == 1 && (es[0].TicketID != tk.ID || !strings.Contains(string(es[0].Data), r.ID)) {
		t.Errorf("event = %+v, want ticket %s and run %s", es[0], tk.ID, r.ID)
	}
	c, err := s.RunControl(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.StopRequestedAt == nil || c.StopRequestedBy != "ana" || c.Status != board.RunRunning {
		t.Errorf("RunControl = %+v, want a stop asked by ana on a running run", c)
	}
	first := *c.StopRequestedAt

	// Asking again keeps the first request and adds no event.
	clock.tick()
	before = lastEventID(t, s)
	if _, err := s.RequestStop(ctx, tk.Ref(), "bob"); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, s, before)
	if c, _ := s.RunControl(ctx, r.ID); c.StopRequestedBy != "ana" || !c.StopRequestedAt.Equal(first) {
		t.Errorf("after a second request RunControl = %+v, want ana's at %v", c, first)
	}

	done, err := s.FinishRun(ctx, board.Run{ID: r.ID, Status: board.RunStopped, Error: "stopped by ana"})
	if err != nil {
		t.Fatalf("FinishRun(stopped): %v", err)
	}
	if done.Status != board.RunStopped {
		t.Errorf("finished as %s, want stopped", done.Status)
	}
	_, err = s.RequestStop(ctx, tk.Ref(), "ana")
	wantCode(t, err, board.ECONFLICT, "finished as stopped")

	_, err = s.RequestStop(ctx, board.Ref{Project: "demo", Number: 99}, "ana")
	wantCode(t, err, board.ENOTFOUND, "")
}

func testRunControl(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	r := mustStart(t, s, tk, board.TaskImplement)

	c, err := s.RunControl(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.StopRequestedAt != nil || !c.LastHumanComment.IsZero() || c.Status != board.RunRunning {
		t.Errorf("RunControl of a new run = %+v, want running, no stop, no comment", c)
	}
	clock.tick()
	cm := mustComment(t, s, tk.Ref(), board.Human, board.KindNote, "use the other API")
	mustComment(t, s, tk.Ref(), board.System, board.KindNote, "not a person")
	if c, _ = s.RunControl(ctx, r.ID); !c.LastHumanComment.Equal(cm.CreatedAt) {
		t.Errorf("LastHumanComment = %v, want the person's comment at %v", c.LastHumanComment, cm.CreatedAt)
	}
	if err := s.ResolveComments(ctx, tk.Ref(), []string{cm.ID}); err != nil {
		t.Fatal(err)
	}
	if c, _ = s.RunControl(ctx, r.ID); !c.LastHumanComment.IsZero() {
		t.Errorf("after resolving, LastHumanComment = %v, want none", c.LastHumanComment)
	}
	_, err = s.RunControl(ctx, "nope")
	wantCode(t, err, board.ENOTFOUND, "")
}
