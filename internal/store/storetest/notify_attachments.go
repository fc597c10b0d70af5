package storetest

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var notifyAttachmentCases = []testCase{
	{"OfAComment", testEventAttachmentsOfAComment},
	{"OfAMove", testEventAttachmentsOfAMove},
}

// attachAs attaches a file to comment of the ticket as actor.
func attachAs(t *testing.T, s store.Store, ref board.Ref, comment string, actor board.Actor, name, data string) board.Attachment {
	t.Helper()
	a, err := s.AddAttachment(t.Context(), ref, board.NewAttachment{CommentID: comment, Name: name, Data: []byte(data),
		AuthorType: actor, AuthorName: string(actor)}, board.DefaultAttachmentLimits)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// lastOf is the newest event of type typ after id.
func lastOf(t *testing.T, s store.Store, after int64, typ board.EventType) board.Event {
	t.Helper()
	var e board.Event
	for _, x := range eventsAfter(t, s, after) {
		if x.Type == typ {
			e = x
		}
	}
	if e.ID == 0 {
		t.Fatalf("no %s event", typ)
	}
	return e
}

// names are the attachments' names, in order.
func names(as []board.Attachment) []string {
	out := []string{}
	for _, a := range as {
		out = append(out, a.Name)
	}
	return out
}

// A comment's event links the files of that comment, not the ticket's
// others; an unknown event is ENOTFOUND.
func testEventAttachmentsOfAComment(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	attachAs(t, s, tk.Ref(), "", board.Human, "design.png", "the ticket's own")
	before := lastEventID(t, s)
	clock.tick()
	q := mustComment(t, s, tk.Ref(), board.Agent, board.KindQuestion, "Which of these?")
	attachAs(t, s, tk.Ref(), q.ID, board.Agent, "a.log", "one")
	clock.tick()
	attachAs(t, s, tk.Ref(), q.ID, board.Agent, "b.log", "two")
	as, err := s.EventAttachments(t.Context(), lastOf(t, s, before, board.EventCommentAdded).ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "files of the question", names(as), []string{"a.log", "b.log"})
	_, err = s.EventAttachments(t.Context(), lastEventID(t, s)+100)
	wantCode(t, err, board.ENOTFOUND, "")
}

// A move to VERIFICATION links the files of the completion comment its
// mover posted just before it; a move with anything else between, or
// without such a comment, links none.
func testEventAttachmentsOfAMove(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	before := lastEventID(t, s)
	c := mustComment(t, s, tk.Ref(), board.Agent, board.KindCompletion, "Done; the evidence:")
	attachAs(t, s, tk.Ref(), c.ID, board.Agent, "shot.png", "picture")
	clock.tick()
	attachAs(t, s, tk.Ref(), c.ID, board.Agent, "run.log", "log")
	mustMove(t, s, tk.Ref(), board.Verification, board.Agent)
	as, err := s.EventAttachments(t.Context(), lastOf(t, s, before, board.EventTicketMoved).ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "files of the move", names(as), []string{"shot.png", "run.log"})

	// Sent back, then moved again with a person's comment between the
	// completion comment and the move: the old evidence is not linked.
	mustMove(t, s, tk.Ref(), board.InProgress, board.Human)
	c2 := mustComment(t, s, tk.Ref(), board.Agent, board.KindCompletion, "Done again")
	attachAs(t, s, tk.Ref(), c2.ID, board.Agent, "new.png", "newer")
	mustComment(t, s, tk.Ref(), board.Human, board.KindNote, "a note")
	before = lastEventID(t, s)
	mustMove(t, s, tk.Ref(), board.Verification, board.Agent)
	as, err = s.EventAttachments(t.Context(), lastOf(t, s, before, board.EventTicketMoved).ID)
	if err != nil || len(as) != 0 {
		t.Errorf("files of a move after another comment: %v, %v; want none", names(as), err)
	}
}
