package storetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var moveCases = []testCase{
	{"EveryRule", testMoveEveryRule},
	{"PlanNeededToLeaveResearch", testMovePlanNeeded},
	{"ReturnWithFeedback", testMoveReturnWithFeedback},
	{"ReturnNeedsFeedback", testMoveReturnNeedsFeedback},
	{"ClearsBlocked", testMoveClearsBlocked},
}

// testMoveEveryRule tries every move from every state by every actor and
// checks that the store does exactly what board.CheckMove and
// board.ApplyMove say: refused moves return the *board.RuleError and change
// nothing; allowed ones persist the new state and record one event.
func testMoveEveryRule(t *testing.T, s store.Store, clock *clock) {
	projects := map[string]board.AgentSettings{
		"demo":  {},
		"auto":  {TakeBacklog: true},
		"plans": {PermissionMode: board.ModePlan},
	}
	for slug, settings := range projects {
		p := newProject(slug)
		p.Agent = settings
		if _, err := s.CreateProject(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	for _, proj := range []string{"demo", "auto", "plans"} {
		for _, from := range board.States {
			for _, to := range board.States {
				for _, actor := range []board.Actor{board.Human, board.Agent, board.System} {
					testMove(t, s, proj, projects[proj], from, to, actor)
				}
			}
		}
	}
}

// testMove makes one move in project proj, whose agent settings are
// settings, and checks it against the board rules. The request claims the
// opposite settings: the store must go by the project.
func testMove(t *testing.T, s store.Store, proj string, settings board.AgentSettings, from, to board.State, actor board.Actor) {
	t.Run(fmt.Sprintf("%s %s→%s by %s", proj, from, to, actor), func(t *testing.T) {
		tk := ticketIn(t, s, proj, from)
		if from == board.Research {
			plan := "the plan"
			tk = mustUpdate(t, s, tk.Ref(), board.TicketPatch{Plan: &plan})
		}
		claimed := board.AgentSettings{TakeBacklog: !settings.TakeBacklog, PermissionMode: board.ModePlan}
		if settings.PermissionMode == board.ModePlan {
			claimed.PermissionMode = board.ModeAuto
		}
		req := board.MoveRequest{To: to, Actor: actor, Feedback: "needs another test", Project: claimed}
		before := lastEventID(t, s)
		got, err := s.MoveTicket(t.Context(), tk.Ref(), req, "someone")
		req.Project = settings
		if want := board.CheckMove(tk, req); want != nil {
			wantRule(t, err, tk, req)
			same(t, "ticket after a refused move", mustGet(t, s, tk.Ref()), tk)
			wantEvents(t, s, before)
			return
		}
		if err != nil {
			t.Fatalf("allowed move refused: %v", err)
		}
		want := board.ApplyMove(tk, req)
		want.UpdatedAt = got.UpdatedAt
		same(t, "moved ticket", got, want)
		same(t, "moved ticket read back", mustGet(t, s, tk.Ref()), got)
		if got.UpdatedAt.Before(tk.UpdatedAt) {
			t.Errorf("UpdatedAt went back: %v < %v", got.UpdatedAt, tk.UpdatedAt)
		}
		wantTypes := []board.EventType{board.EventTicketMoved}
		if from == board.Verification && to == board.InProgress {
			wantTypes = append(wantTypes, board.EventCommentAdded)
		}
		es := wantEvents(t, s, before, wantTypes...)
		if len(es) > 0 {
			e := es[0]
			if e.TicketID != tk.ID || e.ProjectID != tk.ProjectID || e.Actor != actor {
				t.Errorf("event = %+v, want ticket %s, project %s, actor %s", e, tk.ID, tk.ProjectID, actor)
			}
			var data map[string]any
			if err := json.Unmarshal(e.Data, &data); err != nil {
				t.Errorf("event data %s: %v", e.Data, err)
			}
		}
	})
}

func mustUpdate(t *testing.T, s store.Store, ref board.Ref, u board.TicketPatch) board.Ticket {
	t.Helper()
	got, err := s.UpdateTicket(t.Context(), ref, u, board.Agent)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func testMovePlanNeeded(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.Research)
	req := board.MoveRequest{To: board.InProgress, Actor: board.Agent}
	_, err := s.MoveTicket(t.Context(), tk.Ref(), req, "agent")
	wantRule(t, err, tk, req)
	wantCode(t, err, board.EREFUSED, "must save a plan")

	plan := "1. write the code"
	tk = mustUpdate(t, s, tk.Ref(), board.TicketPatch{Plan: &plan})
	got, err := s.MoveTicket(t.Context(), tk.Ref(), req, "agent")
	if err != nil || got.State != board.InProgress {
		t.Fatalf("move with a plan = %s, %v; want IN_PROGRESS", got.State, err)
	}
}

func testMoveReturnWithFeedback(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.Verification)
	before := lastEventID(t, s)
	req := board.MoveRequest{To: board.InProgress, Actor: board.Human, Feedback: "the error message is missing"}
	got, err := s.MoveTicket(t.Context(), tk.Ref(), req, "ana")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != board.InProgress || got.SubState != board.SubReturned {
		t.Errorf("returned ticket is %s/%q, want IN_PROGRESS/returned", got.State, got.SubState)
	}
	cs, err := s.Comments(t.Context(), tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 {
		t.Fatalf("comments = %+v, want one feedback comment", cs)
	}
	c := cs[0]
	if c.Kind != board.KindFeedback || c.AuthorType != board.Human || c.AuthorName != "ana" ||
		c.Content != req.Feedback || c.TicketID != tk.ID || c.Resolved || c.ID == "" {
		t.Errorf("feedback comment = %+v", c)
	}
	wantEvents(t, s, before, board.EventTicketMoved, board.EventCommentAdded)

	// The feedback is an unresolved human comment: the agent picks it up first.
	picks, err := s.Pick(t.Context(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if len(picks) != 1 || picks[0].Ticket.ID != tk.ID || picks[0].Class != board.ClassHumanReply {
		t.Errorf("Pick = %+v, want %s for its human comment", picks, tk.Ref())
	}
}

func testMoveReturnNeedsFeedback(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.Verification)
	before := lastEventID(t, s)
	req := board.MoveRequest{To: board.InProgress, Actor: board.Human, Feedback: "  "}
	_, err := s.MoveTicket(t.Context(), tk.Ref(), req, "ana")
	wantRule(t, err, tk, req)
	wantCode(t, err, board.EREFUSED, "needs feedback")
	same(t, "ticket after a refused return", mustGet(t, s, tk.Ref()), tk)
	wantEvents(t, s, before)

	// Feedback longer than a comment may be is invalid and changes nothing.
	req.Feedback = strings.Repeat("x", board.MaxComment+1)
	_, err = s.MoveTicket(t.Context(), tk.Ref(), req, "ana")
	wantCode(t, err, board.EINVALID, "the limit is")
	same(t, "ticket after a too-long return", mustGet(t, s, tk.Ref()), tk)
	wantEvents(t, s, before)
}

func testMoveClearsBlocked(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	mustComment(t, s, tk.Ref(), board.Agent, board.KindQuestion, "which database?")
	if got := mustGet(t, s, tk.Ref()); got.SubState != board.SubBlocked {
		t.Fatalf("sub-state after a question = %q, want blocked", got.SubState)
	}
	got := mustMove(t, s, tk.Ref(), board.Backlog, board.Human)
	if got.SubState != board.SubNone {
		t.Errorf("sub-state after a move = %q, want none", got.SubState)
	}
}
