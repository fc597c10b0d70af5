package storetest

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var commentCases = []testCase{
	{"AddAndList", testCommentAddAndList},
	{"Validation", testCommentValidation},
	{"SubState", testCommentSubState},
	{"Resolve", testCommentResolve},
}

func testCommentAddAndList(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	clock.tick()
	before := lastEventID(t, s)
	in := board.Comment{AuthorType: board.Human, AuthorName: "ana", Kind: board.KindNote, Content: "Use **Postgres**.", Resolved: true}
	c, err := s.AddComment(t.Context(), tk.Ref(), in)
	if err != nil {
		t.Fatal(err)
	}
	wantRecent(t, "CreatedAt", c.CreatedAt)
	want := in
	want.ID, want.TicketID, want.Resolved, want.CreatedAt = c.ID, tk.ID, false, c.CreatedAt
	if c.ID == "" {
		t.Error("comment has no ID")
	}
	same(t, "added comment", c, want)
	es := wantEvents(t, s, before, board.EventCommentAdded)
	if len(es) == 1 && (es[0].TicketID != tk.ID || es[0].Actor != board.Human) {
		t.Errorf("event = %+v, want ticket %s by human", es[0], tk.ID)
	}
	// A comment is a change to the ticket.
	if got := mustGet(t, s, tk.Ref()); !got.UpdatedAt.Equal(c.CreatedAt) {
		t.Errorf("ticket UpdatedAt = %v, want the comment's time %v", got.UpdatedAt, c.CreatedAt)
	}

	// The thread is oldest first, in the order written even within one millisecond.
	cs := []board.Comment{c}
	for i, kind := range []board.CommentKind{board.KindStatus, board.KindCompletion, board.KindApproval, board.KindNote} {
		author := board.Agent
		if i%2 == 1 {
			author = board.System
		}
		cs = append(cs, mustComment(t, s, tk.Ref(), author, kind, "comment "+string(kind)))
	}
	got, err := s.Comments(t.Context(), tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	same(t, "thread", got, cs)

	other := ticketIn(t, s, "demo", board.Backlog)
	got, err = s.Comments(t.Context(), other.Ref())
	if err != nil {
		t.Fatal(err)
	}
	same(t, "thread of a ticket without comments", got, []board.Comment{})
}

func testCommentValidation(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	before := lastEventID(t, s)
	for _, tc := range []struct {
		name string
		c    board.Comment
		msg  string
	}{
		{"empty", board.Comment{AuthorType: board.Human, Kind: board.KindNote, Content: " \n"}, "comment is empty"},
		{"unknown kind", board.Comment{AuthorType: board.Human, Kind: "rant", Content: "x"}, "unknown comment kind"},
		{"unknown author", board.Comment{AuthorType: "bot", Kind: board.KindNote, Content: "x"}, "unknown author type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.AddComment(t.Context(), tk.Ref(), tc.c)
			wantCode(t, err, board.EINVALID, tc.msg)
		})
	}
	cs, err := s.Comments(t.Context(), tk.Ref())
	if err != nil || len(cs) != 0 {
		t.Errorf("comments after refused ones = %v, %v; want none", cs, err)
	}
	same(t, "ticket after refused comments", mustGet(t, s, tk.Ref()), tk)
	wantEvents(t, s, before)
}

// testCommentSubState checks board.ApplyComment through the store: an agent
// question blocks the ticket, a human reply unblocks it, other comments
// leave the sub-state alone.
func testCommentSubState(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	ref := tk.Ref()
	steps := []struct {
		author board.Actor
		kind   board.CommentKind
		want   board.SubState
	}{
		{board.Agent, board.KindStatus, board.SubNone},
		{board.Agent, board.KindQuestion, board.SubBlocked},
		{board.Agent, board.KindStatus, board.SubBlocked},
		{board.System, board.KindNote, board.SubBlocked},
		{board.Human, board.KindNote, board.SubNone},
		{board.Human, board.KindNote, board.SubNone},
	}
	for i, st := range steps {
		before := lastEventID(t, s)
		mustComment(t, s, ref, st.author, st.kind, "step")
		if got := mustGet(t, s, ref); got.SubState != st.want {
			t.Errorf("step %d (%s %s): sub-state = %q, want %q", i, st.author, st.kind, got.SubState, st.want)
		}
		wantEvents(t, s, before, board.EventCommentAdded)
	}

	// A blocked ticket is not picked; once answered it is, for the answer.
	mustComment(t, s, ref, board.Agent, board.KindQuestion, "one more question")
	picks, err := s.Pick(t.Context(), "demo")
	if err != nil || len(picks) != 0 {
		t.Errorf("Pick with the only ticket blocked = %+v, %v; want nothing", picks, err)
	}
	mustComment(t, s, ref, board.Human, board.KindNote, "the answer")
	picks, err = s.Pick(t.Context(), "demo")
	if err != nil || len(picks) != 1 || picks[0].Class != board.ClassHumanReply {
		t.Errorf("Pick after the answer = %+v, %v; want the ticket for its human comment", picks, err)
	}

	// A human comment leaves "returned" alone.
	ret := ticketIn(t, s, "demo", board.Verification)
	mustMove(t, s, ret.Ref(), board.InProgress, board.Human)
	mustComment(t, s, ret.Ref(), board.Human, board.KindNote, "also this")
	if got := mustGet(t, s, ret.Ref()); got.SubState != board.SubReturned {
		t.Errorf("sub-state of a returned ticket after a human comment = %q, want returned", got.SubState)
	}
}

func testCommentResolve(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	other := ticketIn(t, s, "demo", board.InProgress)
	elsewhere := mustComment(t, s, other.Ref(), board.Human, board.KindNote, "other ticket")
	h1 := mustComment(t, s, tk.Ref(), board.Human, board.KindNote, "first")
	a1 := mustComment(t, s, tk.Ref(), board.Agent, board.KindStatus, "working")
	h2 := mustComment(t, s, tk.Ref(), board.Human, board.KindNote, "second")
	h3 := mustComment(t, s, tk.Ref(), board.Human, board.KindNote, "third")

	resolved := func() map[string]bool {
		cs, err := s.Comments(ctx, tk.Ref())
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, c := range cs {
			m[c.ID] = c.Resolved
		}
		return m
	}

	// An ID that is not a comment of the ticket changes nothing.
	before := lastEventID(t, s)
	err := s.ResolveComments(ctx, tk.Ref(), []string{h1.ID, elsewhere.ID})
	wantCode(t, err, board.ENOTFOUND, elsewhere.ID)
	err = s.ResolveComments(ctx, tk.Ref(), []string{"no-such-comment"})
	wantCode(t, err, board.ENOTFOUND, "no-such-comment")
	same(t, "resolved after refused calls", resolved(), map[string]bool{h1.ID: false, a1.ID: false, h2.ID: false, h3.ID: false})
	wantEvents(t, s, before)

	if err := s.ResolveComments(ctx, tk.Ref(), []string{h1.ID, a1.ID, h2.ID}); err != nil {
		t.Fatal(err)
	}
	same(t, "resolved", resolved(), map[string]bool{h1.ID: true, a1.ID: false, h2.ID: true, h3.ID: false})
	es := wantEvents(t, s, before, board.EventCommentResolved)
	if len(es) == 1 && es[0].TicketID != tk.ID {
		t.Errorf("event ticket = %s, want %s", es[0].TicketID, tk.ID)
	}

	// The ticket still has an unresolved human comment (h3), newer than
	// the other ticket's.
	picks, err := s.Pick(ctx, "demo")
	if err != nil || len(picks) != 1 || picks[0].Ticket.ID != tk.ID || picks[0].Class != board.ClassHumanReply {
		t.Errorf("Pick = %+v, %v; want %s for its human comment", picks, err, tk.Ref())
	}

	// Resolving again, or nothing, changes nothing and records nothing.
	before = lastEventID(t, s)
	if err := s.ResolveComments(ctx, tk.Ref(), []string{h1.ID}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResolveComments(ctx, tk.Ref(), nil); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, s, before)

	if err := s.ResolveComments(ctx, tk.Ref(), []string{h3.ID}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResolveComments(ctx, other.Ref(), []string{elsewhere.ID}); err != nil {
		t.Fatal(err)
	}
	// With every human comment resolved, the tickets are plain in-progress work.
	picks, err = s.Pick(ctx, "demo")
	if err != nil || len(picks) != 1 || picks[0].Class != board.ClassInProgress {
		t.Errorf("Pick after resolving = %+v, %v; want an in-progress pick", picks, err)
	}
}
