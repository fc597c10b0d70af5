package storetest

import (
	"encoding/json"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var eventCases = []testCase{
	{"Log", testEventLog},
	{"Cursor", testEventCursor},
}

// testEventLog runs a small workflow and checks that each change wrote its
// events, in order, with increasing IDs, and that reads and refused changes
// wrote none.
func testEventLog(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	es, err := s.Events(ctx, 0, 10)
	if err != nil || len(es) != 0 {
		t.Fatalf("Events on an empty store = %v, %v; want none", es, err)
	}

	p := mustProject(t, s, "demo")
	tk := mustTicket(t, s, board.Ticket{ProjectSlug: "demo", Title: "work", State: board.Research})
	plan := "the plan"
	mustUpdate(t, s, tk.Ref(), board.TicketPatch{Plan: &plan})
	mustMove(t, s, tk.Ref(), board.InProgress, board.Agent)
	q := mustComment(t, s, tk.Ref(), board.Agent, board.KindQuestion, "which port?")
	a := mustComment(t, s, tk.Ref(), board.Human, board.KindNote, "8080")
	if err := s.ResolveComments(ctx, tk.Ref(), []string{q.ID, a.ID}); err != nil {
		t.Fatal(err)
	}
	r := mustStart(t, s, tk, board.TaskReply)
	if _, err := s.FinishRun(ctx, board.Run{ID: r.ID, Status: board.RunCompleted}); err != nil {
		t.Fatal(err)
	}
	mustMove(t, s, tk.Ref(), board.Verification, board.Agent)
	mustMove(t, s, tk.Ref(), board.InProgress, board.Human) // with feedback
	name := "Demo"
	if _, err := s.UpdateProject(ctx, "demo", board.ProjectPatch{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ArchiveProject(ctx, "demo"); err != nil {
		t.Fatal(err)
	}

	// Reads and refused changes write nothing.
	s.Projects(ctx, store.ProjectFilter{IncludeArchived: true})
	s.Tickets(ctx, store.TicketFilter{})
	s.Ticket(ctx, tk.Ref())
	s.Comments(ctx, tk.Ref())
	s.Runs(ctx, tk.Ref())
	s.RecentRuns(ctx, 5)
	s.Pick(ctx, "")
	s.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.Done, Actor: board.Human}, "x")
	s.CreateProject(ctx, newProject("demo"))

	es = wantEvents(t, s, 0,
		board.EventProjectCreated,
		board.EventTicketCreated,
		board.EventTicketUpdated,
		board.EventTicketMoved,
		board.EventCommentAdded,
		board.EventCommentAdded,
		board.EventCommentResolved,
		board.EventRunStarted,
		board.EventRunFinished,
		board.EventTicketMoved,
		board.EventTicketMoved,
		board.EventCommentAdded,
		board.EventProjectUpdated,
		board.EventProjectArchived,
	)
	var last int64
	for i, e := range es {
		if e.ID <= last {
			t.Errorf("event %d has ID %d, not above the previous %d", i, e.ID, last)
		}
		last = e.ID
		if e.ProjectID != p.ID {
			t.Errorf("event %d (%s) has project %q, want %q", i, e.Type, e.ProjectID, p.ID)
		}
		if e.Type != board.EventProjectCreated && e.Type != board.EventProjectUpdated &&
			e.Type != board.EventProjectArchived && e.TicketID != tk.ID {
			t.Errorf("event %d (%s) has ticket %q, want %q", i, e.Type, e.TicketID, tk.ID)
		}
		if !e.Actor.Valid() {
			t.Errorf("event %d (%s) has actor %q", i, e.Type, e.Actor)
		}
		wantRecent(t, "event CreatedAt", e.CreatedAt)
		if len(e.Data) > 0 && !json.Valid(e.Data) {
			t.Errorf("event %d (%s) data is not JSON: %s", i, e.Type, e.Data)
		}
	}
}

func testEventCursor(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	for range 5 {
		mustTicket(t, s, board.Ticket{ProjectSlug: "demo"})
	}
	all := eventsAfter(t, s, 0)
	if len(all) != 6 {
		t.Fatalf("events = %d, want 6", len(all))
	}
	page, err := s.Events(ctx, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "first page", page, all[:2])
	page, err = s.Events(ctx, all[1].ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "second page", page, all[2:5])
	page, err = s.Events(ctx, all[5].ID, 3)
	if err != nil || len(page) != 0 {
		t.Errorf("Events after the last = %v, %v; want none", page, err)
	}
	page, err = s.Events(ctx, 0, 0)
	if err != nil || len(page) != len(all) {
		t.Errorf("Events with limit 0 = %d events, %v; want the default page holding all %d", len(page), err, len(all))
	}
}
