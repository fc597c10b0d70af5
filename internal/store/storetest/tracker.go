package storetest

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var trackerCases = []testCase{
	{"SyncState", testTrackerSyncState},
	{"LinkedTicketOnce", testLinkedTicketOnce},
	{"SaveLink", testSaveIssueLink},
	{"CommentsCrossOnce", testIssueCommentsCrossOnce},
}

func testTrackerSyncState(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	got, err := s.TrackerSync(ctx, "demo")
	if err != nil || got != (board.TrackerSync{ProjectSlug: "demo"}) {
		t.Fatalf("TrackerSync before any = %+v, %v; want a zero one", got, err)
	}
	clock.tick()
	in := board.TrackerSync{ProjectSlug: "demo", Tracker: board.TrackerGitHub, Query: "labels=bonsai", Validator: `W/"abc"`,
		Error: "github issues: list issues: 503", Failures: 2}
	saved, err := s.SaveTrackerSync(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.UpdatedAt = clock.Now()
	same(t, "saved sync", saved, want)
	got, _ = s.TrackerSync(ctx, "demo")
	same(t, "sync read back", got, want)
	clock.tick()
	in.Error, in.Failures, in.Validator = "", 0, `W/"def"`
	if _, err := s.SaveTrackerSync(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, _ = s.TrackerSync(ctx, "demo")
	if got.Error != "" || got.Failures != 0 || got.Validator != `W/"def"` || !got.UpdatedAt.Equal(clock.Now()) {
		t.Errorf("replaced sync %+v", got)
	}
	_, err = s.TrackerSync(ctx, "nope")
	wantCode(t, err, board.ENOTFOUND, "nope")
	_, err = s.SaveTrackerSync(ctx, board.TrackerSync{ProjectSlug: "nope"})
	wantCode(t, err, board.ENOTFOUND, "nope")
}

func issueLink(id, ref string) board.IssueLink {
	return board.IssueLink{Tracker: board.TrackerGitHub, IssueID: id, IssueRef: ref, URL: "https://github.com/acme/widget/issues/" + ref,
		Status: board.IssueOpen}
}

func testLinkedTicketOnce(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	mustProject(t, s, "other")
	before := lastEventID(t, s)
	tk, l, err := s.CreateLinkedTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Greet", Description: "Say hello",
		Criteria: []string{"prints hello"}, State: board.Research}, issueLink("9001", "101"))
	if err != nil {
		t.Fatal(err)
	}
	if tk.Number != 1 || tk.State != board.Research || l.Ref != tk.Ref() || !l.Since.Equal(clock.Now()) {
		t.Fatalf("linked ticket %+v, link %+v", tk, l)
	}
	wantEvents(t, s, before, board.EventTicketCreated)
	got, err := s.IssueLink(ctx, tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	same(t, "link read back", got, l)

	// The same issue again creates nothing, and takes no ticket number.
	before = lastEventID(t, s)
	_, _, err = s.CreateLinkedTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Greet again"}, issueLink("9001", "101"))
	wantCode(t, err, board.ECONFLICT, "already linked")
	wantEvents(t, s, before)
	if n, _ := s.CountTickets(ctx, store.TicketFilter{ProjectSlug: "demo"}); n != 1 {
		t.Errorf("%d tickets after a repeated link; want 1", n)
	}
	// Another project may link the same issue; a bad link is refused.
	if _, _, err := s.CreateLinkedTicket(ctx, board.Ticket{ProjectSlug: "other", Title: "Greet"}, issueLink("9001", "101")); err != nil {
		t.Errorf("the same issue in another project: %v", err)
	}
	bad := issueLink("", "102")
	_, _, err = s.CreateLinkedTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "No id"}, bad)
	wantCode(t, err, board.EINVALID, "id")
	plain := mustTicket(t, s, board.Ticket{ProjectSlug: "demo", Title: "Plain"})
	_, err = s.IssueLink(ctx, plain.Ref())
	wantCode(t, err, board.ENOTFOUND, "no tracker issue")
	links, err := s.IssueLinks(ctx, "demo")
	if err != nil || len(links) != 1 || links[0].Ref != tk.Ref() {
		t.Errorf("IssueLinks = %+v, %v", links, err)
	}
	_, err = s.IssueLinks(ctx, "nope")
	wantCode(t, err, board.ENOTFOUND, "nope")
}

func testSaveIssueLink(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk, l, err := s.CreateLinkedTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Greet"}, issueLink("9001", "101"))
	if err != nil {
		t.Fatal(err)
	}
	clock.tick()
	l.Cursor, l.Seen, l.Mirrored, l.Status, l.URL = "5@6", "2026-01-01T00:00:00Z/3", board.InProgress, board.IssueMoved, "https://x/y"
	l.IssueID = "changed" // the tracker's id is kept
	saved, err := s.SaveIssueLink(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.IssueLink(ctx, tk.Ref())
	same(t, "saved link", got, saved)
	if got.IssueID != "9001" || got.Cursor != "5@6" || got.Mirrored != board.InProgress || got.Status != board.IssueMoved ||
		!got.UpdatedAt.Equal(clock.Now()) || got.Since.Equal(got.UpdatedAt) {
		t.Errorf("link after save %+v", got)
	}
	l.Status = "lost"
	_, err = s.SaveIssueLink(ctx, l)
	wantCode(t, err, board.EINVALID, "status")
	plain := mustTicket(t, s, board.Ticket{ProjectSlug: "demo", Title: "Plain"})
	l.Ref, l.Status = plain.Ref(), board.IssueOpen
	_, err = s.SaveIssueLink(ctx, l)
	wantCode(t, err, board.ENOTFOUND, "no tracker issue")
}

func testIssueCommentsCrossOnce(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk, _, err := s.CreateLinkedTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Greet", State: board.Research}, issueLink("9001", "101"))
	if err != nil {
		t.Fatal(err)
	}
	q := mustComment(t, s, tk.Ref(), board.Agent, board.KindQuestion, "Which greeting?")
	if mustGet(t, s, tk.Ref()).SubState != board.SubBlocked {
		t.Fatal("the question did not block the ticket")
	}
	if err := s.RecordPostedComment(ctx, tk.Ref(), q.ID, "555"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.RecordPostedComment(ctx, tk.Ref(), q.ID, "556"), board.ECONFLICT, "")
	wantCode(t, s.RecordPostedComment(ctx, tk.Ref(), "nope", "557"), board.ENOTFOUND, "nope")
	plan := board.PostedPlanPrefix + "0123456789abcdef"
	if err := s.RecordPostedComment(ctx, tk.Ref(), plan, "558"); err != nil {
		t.Fatalf("a plan posted: %v", err)
	}
	wantCode(t, s.RecordPostedComment(ctx, tk.Ref(), plan, "559"), board.ECONFLICT, "")
	posted, err := s.PostedComments(ctx, tk.Ref())
	if err != nil || len(posted) != 2 || posted[q.ID] != "555" || posted[plan] != "558" {
		t.Fatalf("PostedComments = %v, %v", posted, err)
	}

	// A maintainer's answer unblocks the ticket, once.
	before := lastEventID(t, s)
	answer := board.Comment{AuthorType: board.Human, AuthorName: "carol (GitHub)", Kind: board.KindNote, Content: "Hello, world."}
	c, err := s.DeliverIssueComment(ctx, tk.Ref(), answer, "777")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID == "" || mustGet(t, s, tk.Ref()).SubState == board.SubBlocked {
		t.Fatalf("delivered %+v; the ticket is still blocked", c)
	}
	wantEvents(t, s, before, board.EventCommentAdded)
	before = lastEventID(t, s)
	_, err = s.DeliverIssueComment(ctx, tk.Ref(), answer, "777")
	wantCode(t, err, board.ECONFLICT, "777")
	wantEvents(t, s, before)
	// The same id in the other direction is another comment.
	if _, err := s.DeliverIssueComment(ctx, tk.Ref(), answer, "555"); err != nil {
		t.Errorf("an inbound id equal to a posted one: %v", err)
	}
	if cs, _ := s.Comments(ctx, tk.Ref()); len(cs) != 3 {
		t.Errorf("%d comments; want the question and two answers", len(cs))
	}
	_, err = s.DeliverIssueComment(ctx, tk.Ref(), answer, "")
	wantCode(t, err, board.EINVALID, "")
}
