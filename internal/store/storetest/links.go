package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var linkCases = []testCase{
	{"BlockedBy", testLinkBlockedBy},
	{"Refused", testLinkRefused},
	{"SubTickets", testLinkSubTickets},
	{"Unlink", testLinkUnlink},
}

func mustLink(t *testing.T, s store.Store, a board.Ticket, kind board.LinkKind, b board.Ticket) {
	t.Helper()
	if err := s.LinkTickets(t.Context(), board.Link{Ticket: a.Ref(), Other: b.Ref(), Kind: kind}, board.Human); err != nil {
		t.Fatalf("LinkTickets(%s %s %s): %v", a.Ref(), kind, b.Ref(), err)
	}
}

// wantNoPick checks that project slug has nothing to pick, and agrees with
// the policy.
func wantNoPick(t *testing.T, s store.Store, slug string) {
	t.Helper()
	if got := pickRefs(t, s, slug); len(got) != 0 {
		t.Errorf("Pick(%s) = %v, want nothing", slug, got)
	}
	checkPolicy(t, s)
}

// testLinkBlockedBy: a ticket is not picked while its blocker is not
// DONE, and is picked again once it is; the queue follows each change.
func testLinkBlockedBy(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	first := ticketIn(t, s, "demo", board.InProgress) // picked first: least recently updated
	clock.advance(time.Second)
	blocker := ticketIn(t, s, "demo", board.InProgress)
	wantPick(t, s, "demo", first, board.ClassInProgress)

	before := lastEventID(t, s)
	mustLink(t, s, first, board.LinkBlockedBy, blocker)
	es := wantEvents(t, s, before, board.EventTicketLinked)
	if !strings.Contains(string(es[0].Data), `"other":"demo#2"`) || es[0].TicketID != first.ID {
		t.Errorf("ticket.linked = %+v %s", es[0], es[0].Data)
	}
	mustLink(t, s, first, board.LinkBlockedBy, blocker) // again: nothing changes
	wantEvents(t, s, before, board.EventTicketLinked)
	blocker = mustGet(t, s, blocker.Ref())
	wantPick(t, s, "demo", blocker, board.ClassInProgress)

	ls, err := s.TicketLinks(t.Context(), first.Ref())
	if err != nil {
		t.Fatal(err)
	}
	same(t, "links of demo#1", ls, board.Links{Children: []board.LinkedTicket{},
		BlockedBy: []board.LinkedTicket{{Ref: blocker.Ref(), Title: blocker.Title, State: board.InProgress}},
		Blocks:    []board.LinkedTicket{}})
	if got := ls.WaitingText(); got != "waits for demo#2 (IN_PROGRESS)" {
		t.Errorf("WaitingText = %q", got)
	}
	ls, err = s.TicketLinks(t.Context(), blocker.Ref())
	if err != nil || len(ls.Blocks) != 1 || ls.Blocks[0].Ref != first.Ref() || len(ls.Waiting()) != 0 {
		t.Errorf("links of demo#2 = %+v, %v; want it to block demo#1", ls, err)
	}

	if ws, err := s.WaitingTickets(t.Context(), 10); err != nil || len(ws) != 1 || ws[0].ID != first.ID {
		t.Errorf("WaitingTickets = %+v, %v; want demo#1", ws, err)
	}
	mustMove(t, s, blocker.Ref(), board.Verification, board.Agent)
	wantNoPick(t, s, "demo")
	mustMove(t, s, blocker.Ref(), board.Done, board.Human)
	wantPick(t, s, "demo", mustGet(t, s, first.Ref()), board.ClassInProgress)
	if ws, err := s.WaitingTickets(t.Context(), 10); err != nil || len(ws) != 0 {
		t.Errorf("WaitingTickets once the blocker is DONE = %+v, %v; want none", ws, err)
	}
	// A new blocker holds the ticket again.
	again := ticketIn(t, s, "demo", board.Research)
	mustLink(t, s, first, board.LinkBlockedBy, again)
	wantPick(t, s, "demo", again, board.ClassResearch)
}

// testLinkRefused: cycles (named), links across projects, to the ticket
// itself and second parents are refused, and write nothing.
func testLinkRefused(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	mustProject(t, s, "other")
	a := ticketIn(t, s, "demo", board.InProgress)
	b := ticketIn(t, s, "demo", board.InProgress)
	c := ticketIn(t, s, "demo", board.Research)
	elsewhere := ticketIn(t, s, "other", board.InProgress)
	mustLink(t, s, a, board.LinkBlockedBy, b)
	mustLink(t, s, b, board.LinkBlockedBy, c)
	before := lastEventID(t, s)
	link := func(x board.Ticket, kind board.LinkKind, y board.Ticket) error {
		return s.LinkTickets(t.Context(), board.Link{Ticket: x.Ref(), Other: y.Ref(), Kind: kind}, board.Human)
	}
	wantCode(t, link(c, board.LinkBlockedBy, a), board.EINVALID,
		"linking demo#3 to demo#1 would make a dependency cycle: demo#3 → demo#1 → demo#2 → demo#3; no ticket on it could ever be picked")
	// a parent waits for its sub-tickets: c as a's parent closes a cycle too
	wantCode(t, link(a, board.LinkParent, c), board.EINVALID,
		"linking demo#1 to demo#3 would make a dependency cycle: demo#3 → demo#1 → demo#2 → demo#3; no ticket on it could ever be picked")
	wantCode(t, link(a, board.LinkBlockedBy, a), board.EINVALID, "demo#1 cannot depend on itself")
	wantCode(t, link(a, board.LinkBlockedBy, elsewhere), board.EINVALID,
		"demo#1 and other#1 are in different projects; a ticket can only depend on a ticket of its own project (the pick works per project)")
	wantCode(t, link(a, "before", b), board.EINVALID, `unknown link kind "before"; use blocked_by or parent`)
	wantCode(t, s.LinkTickets(t.Context(), board.Link{Ticket: a.Ref(), Other: board.Ref{Project: "demo", Number: 9}, Kind: board.LinkBlockedBy}, board.Human),
		board.ENOTFOUND, "ticket demo#9 not found")
	if n := len(eventsAfter(t, s, before)); n != 0 {
		t.Errorf("%d events after the refusals, want none", n)
	}
	d := ticketIn(t, s, "demo", board.Backlog)
	mustLink(t, s, d, board.LinkParent, c)
	before = lastEventID(t, s)
	wantCode(t, link(d, board.LinkParent, b), board.ECONFLICT, "demo#4 is already a sub-ticket of demo#3; unlink it first")
	if n := len(eventsAfter(t, s, before)); n != 0 {
		t.Errorf("%d events after a second parent, want none", n)
	}
	checkPolicy(t, s)
}

// testLinkSubTickets: sub-tickets are created with their parent in one
// transaction; the parent waits until all of them are DONE; the limit
// holds.
func testLinkSubTickets(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	parent := ticketIn(t, s, "demo", board.InProgress)
	before := lastEventID(t, s)
	var drafts []board.Ticket
	for i := range 3 {
		drafts = append(drafts, board.Ticket{Title: fmt.Sprintf("part %d", i+1), State: board.InProgress,
			Criteria: []string{fmt.Sprintf("part %d works", i+1)}, Plan: "do part"})
	}
	kids, err := s.CreateSubTickets(t.Context(), store.SubTickets{Parent: parent.Ref(), Tickets: drafts, Actor: board.Agent,
		Comment: board.Comment{AuthorType: board.Agent, AuthorName: "bonsai", Kind: board.KindStatus, Content: "Split into demo#2, demo#3, demo#4."}})
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, s, before, board.EventTicketCreated, board.EventTicketLinked, board.EventTicketCreated, board.EventTicketLinked,
		board.EventTicketCreated, board.EventTicketLinked, board.EventCommentAdded)
	if len(kids) != 3 || kids[2].Number != 4 || kids[0].ProjectSlug != "demo" || kids[1].Criteria[0] != "part 2 works" {
		t.Fatalf("CreateSubTickets = %+v", kids)
	}
	ls, err := s.TicketLinks(t.Context(), parent.Ref())
	if err != nil || len(ls.Children) != 3 || len(ls.Waiting()) != 3 {
		t.Fatalf("links of the parent = %+v, %v", ls, err)
	}
	if got := ls.WaitingText(); !strings.Contains(got, "demo#2 (sub-ticket, IN_PROGRESS)") {
		t.Errorf("WaitingText = %q", got)
	}
	if ls, _ := s.TicketLinks(t.Context(), kids[0].Ref()); ls.Parent == nil || ls.Parent.Ref != parent.Ref() {
		t.Errorf("links of a sub-ticket = %+v, want its parent", ls)
	}
	wantPick(t, s, "demo", kids[0], board.ClassInProgress)
	prog, err := s.SubTicketProgress(t.Context(), "demo")
	same(t, "progress", prog, map[int]board.Progress{1: {Done: 0, Total: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range kids {
		mustMove(t, s, k.Ref(), board.Verification, board.Agent)
		mustMove(t, s, k.Ref(), board.Done, board.Human)
		if i < 2 {
			wantPick(t, s, "demo", mustGet(t, s, kids[i+1].Ref()), board.ClassInProgress)
		}
	}
	prog, _ = s.SubTicketProgress(t.Context(), "demo")
	same(t, "progress", prog, map[int]board.Progress{1: {Done: 3, Total: 3}})
	wantPick(t, s, "demo", mustGet(t, s, parent.Ref()), board.ClassInProgress)

	many := make([]board.Ticket, board.MaxSplit+1)
	for i := range many {
		many[i] = board.Ticket{Title: "part"}
	}
	before = lastEventID(t, s)
	_, err = s.CreateSubTickets(t.Context(), store.SubTickets{Parent: parent.Ref(), Tickets: many, Actor: board.Agent})
	wantCode(t, err, board.EINVALID, "give 1 to 10 sub-tickets at once, not 11")
	_, err = s.CreateSubTickets(t.Context(), store.SubTickets{Parent: parent.Ref(), Tickets: []board.Ticket{{Title: ""}}, Actor: board.Agent})
	if board.ErrorCode(err) != board.EINVALID {
		t.Errorf("a sub-ticket without a title: %v, want EINVALID", err)
	}
	done := ticketIn(t, s, "demo", board.Done)
	before = lastEventID(t, s)
	_, err = s.CreateSubTickets(t.Context(), store.SubTickets{Parent: done.Ref(), Tickets: many[:1], Actor: board.Agent})
	wantCode(t, err, board.EREFUSED, "demo#5 is DONE; move it back before giving it sub-tickets")
	if n := len(eventsAfter(t, s, before)); n != 0 {
		t.Errorf("%d events after the refusals, want none", n)
	}
}

// testLinkUnlink: removing a link frees the ticket at once; removing a
// missing one is ENOTFOUND.
func testLinkUnlink(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	a := ticketIn(t, s, "demo", board.Research)
	b := ticketIn(t, s, "demo", board.Verification)
	mustLink(t, s, a, board.LinkBlockedBy, b)
	wantNoPick(t, s, "demo")
	l := board.Link{Ticket: a.Ref(), Other: b.Ref(), Kind: board.LinkBlockedBy}
	before := lastEventID(t, s)
	if err := s.UnlinkTickets(t.Context(), l, board.Human); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, s, before, board.EventTicketUnlinked)
	wantPick(t, s, "demo", a, board.ClassResearch)
	wantCode(t, s.UnlinkTickets(t.Context(), l, board.Human), board.ENOTFOUND, "demo#1 has no blocked_by link to demo#2")
	// a sub-ticket link removed: the parent no longer waits
	mustLink(t, s, b, board.LinkParent, a)
	wantNoPick(t, s, "demo")
	if err := s.UnlinkTickets(t.Context(), board.Link{Ticket: b.Ref(), Other: a.Ref(), Kind: board.LinkParent}, board.Human); err != nil {
		t.Fatal(err)
	}
	wantPick(t, s, "demo", a, board.ClassResearch)
}
