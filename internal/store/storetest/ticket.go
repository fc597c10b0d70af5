package storetest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var ticketCases = []testCase{
	{"CreateAndRead", testTicketCreateAndRead},
	{"NumbersPerProject", testTicketNumbersPerProject},
	{"ConcurrentNumbers", testTicketConcurrentNumbers},
	{"Validation", testTicketValidation},
	{"NotFound", testTicketNotFound},
	{"List", testTicketList},
	{"Update", testTicketUpdate},
	{"Counts", testTicketCounts},
}

func testTicketCounts(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	counts := func() map[string]map[board.State]int {
		t.Helper()
		c, err := s.TicketCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	same(t, "counts of an empty store", counts(), map[string]map[board.State]int{})
	mustProject(t, s, "demo")
	mustProject(t, s, "other")
	mustProject(t, s, "empty")
	same(t, "counts without tickets", counts(), map[string]map[board.State]int{})

	ticketIn(t, s, "demo", board.Backlog)
	ticketIn(t, s, "demo", board.Backlog)
	r := ticketIn(t, s, "demo", board.Research)
	ticketIn(t, s, "demo", board.Done)
	o := ticketIn(t, s, "other", board.InProgress)
	same(t, "counts", counts(), map[string]map[board.State]int{
		"demo":  {board.Backlog: 2, board.Research: 1, board.Done: 1},
		"other": {board.InProgress: 1},
	})

	// Moves move the counts; a state left empty disappears; archived
	// projects are still counted.
	mustMove(t, s, r.Ref(), board.Backlog, board.Human)
	mustMove(t, s, o.Ref(), board.Verification, board.Agent)
	if _, err := s.ArchiveProject(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	same(t, "counts after moves", counts(), map[string]map[board.State]int{
		"demo":  {board.Backlog: 3, board.Done: 1},
		"other": {board.Verification: 1},
	})
}

func testTicketCreateAndRead(t *testing.T, s store.Store, clock *clock) {
	p := mustProject(t, s, "demo")
	before := lastEventID(t, s)
	in := board.Ticket{
		ProjectSlug: "demo",
		Title:       "Add a login page",
		Description: "# Why\nUsers need to log in.",
		Criteria:    []string{"a form with user and password", "wrong password shows an error", "tests pass"},
		Priority:    1,
		Branch:      "bonsai/login",
		Plan:        "draft",
	}
	tk, err := s.CreateTicket(t.Context(), in, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	if tk.ID == "" || tk.ProjectID != p.ID || tk.Number != 1 {
		t.Errorf("created ticket: ID %q, project %q, number %d; want an ID, project %s, number 1", tk.ID, tk.ProjectID, tk.Number, p.ID)
	}
	wantRecent(t, "CreatedAt", tk.CreatedAt)
	want := in
	want.ID, want.ProjectID, want.Number, want.State = tk.ID, p.ID, 1, board.Backlog
	want.CreatedAt, want.UpdatedAt = tk.CreatedAt, tk.CreatedAt
	same(t, "created ticket", tk, want)
	same(t, "ticket read back", mustGet(t, s, board.Ref{Project: "demo", Number: 1}), tk)
	if tk.Ref().String() != "demo#1" {
		t.Errorf("Ref = %s, want demo#1", tk.Ref())
	}
	es := wantEvents(t, s, before, board.EventTicketCreated)
	if len(es) == 1 && (es[0].TicketID != tk.ID || es[0].ProjectID != p.ID || es[0].Actor != board.Human) {
		t.Errorf("event = %+v, want ticket %s of project %s by human", es[0], tk.ID, p.ID)
	}

	// No criteria reads back as an empty list, never null.
	bare := mustTicket(t, s, board.Ticket{ProjectSlug: "demo", Title: "bare"})
	if bare.Criteria == nil || len(bare.Criteria) != 0 {
		t.Errorf("criteria of a ticket without any = %#v, want an empty list", bare.Criteria)
	}
	if got := mustGet(t, s, bare.Ref()); got.Criteria == nil || len(got.Criteria) != 0 {
		t.Errorf("criteria read back = %#v, want an empty list", got.Criteria)
	}

	// A ticket may start in RESEARCH or IN_PROGRESS, and an agent may create one.
	for _, st := range []board.State{board.Research, board.InProgress} {
		got, err := s.CreateTicket(t.Context(), board.Ticket{ProjectSlug: "demo", Title: "starts in " + string(st), State: st}, board.Agent)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != st || got.SubState != board.SubNone {
			t.Errorf("ticket created in %s is in %s/%q", st, got.State, got.SubState)
		}
	}
}

func testTicketNumbersPerProject(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	mustProject(t, s, "other")
	var got []string
	for _, slug := range []string{"demo", "demo", "other", "demo", "other"} {
		got = append(got, mustTicket(t, s, board.Ticket{ProjectSlug: slug}).Ref().String())
	}
	same(t, "references", got, []string{"demo#1", "demo#2", "other#1", "demo#3", "other#2"})

	// A refused ticket does not use up a number.
	_, err := s.CreateTicket(t.Context(), board.Ticket{ProjectSlug: "demo", Title: ""}, board.Human)
	wantCode(t, err, board.EINVALID, "title is empty")
	if tk := mustTicket(t, s, board.Ticket{ProjectSlug: "demo"}); tk.Number != 4 {
		t.Errorf("number after a refused ticket = %d, want 4", tk.Number)
	}
}

// testTicketConcurrentNumbers creates tickets in one project from several
// goroutines at once: every call succeeds and the numbers run 1..N.
func testTicketConcurrentNumbers(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	const writers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				_, err := s.CreateTicket(t.Context(), board.Ticket{ProjectSlug: "demo", Title: fmt.Sprintf("w%d-%d", w, i)}, board.Human)
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ts, err := s.Tickets(t.Context(), store.TicketFilter{ProjectSlug: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != writers*each {
		t.Fatalf("tickets = %d, want %d", len(ts), writers*each)
	}
	for i, tk := range ts {
		if tk.Number != i+1 {
			t.Fatalf("ticket %d has number %d; want 1..%d without gaps", i, tk.Number, writers*each)
		}
	}
	es := eventsAfter(t, s, 0)
	if len(es) != 1+writers*each {
		t.Errorf("events = %d, want %d (the project and one per ticket)", len(es), 1+writers*each)
	}
}

func testTicketValidation(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	before := lastEventID(t, s)
	for _, tc := range []struct {
		name  string
		tk    board.Ticket
		actor board.Actor
		msg   string
	}{
		{"empty title", board.Ticket{Title: "  "}, board.Human, "title is empty"},
		{"long title", board.Ticket{Title: strings.Repeat("x", board.MaxTitle+1)}, board.Human, "the limit is 200"},
		{"two-line title", board.Ticket{Title: "a\nb"}, board.Human, "one line"},
		{"priority too high", board.Ticket{Title: "t", Priority: 5}, board.Human, "priority 5 is out of range"},
		{"negative priority", board.Ticket{Title: "t", Priority: -1}, board.Human, "out of range"},
		{"blank criterion", board.Ticket{Title: "t", Criteria: []string{"ok", " "}}, board.Human, "acceptance criterion 2 is empty"},
		{"unknown state", board.Ticket{Title: "t", State: "LATER"}, board.Human, "unknown state"},
		{"starts in VERIFICATION", board.Ticket{Title: "t", State: board.Verification}, board.Human, "VERIFICATION"},
		{"starts in DONE", board.Ticket{Title: "t", State: board.Done}, board.Human, "DONE"},
		{"starts blocked", board.Ticket{Title: "t", SubState: board.SubBlocked}, board.Human, "sub-state"},
		{"unknown actor", board.Ticket{Title: "t"}, "robot", "unknown actor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.tk.ProjectSlug = "demo"
			_, err := s.CreateTicket(t.Context(), tc.tk, tc.actor)
			wantCode(t, err, board.EINVALID, tc.msg)
		})
	}
	ts, err := s.Tickets(t.Context(), store.TicketFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 0 {
		t.Errorf("invalid tickets were stored: %+v", ts)
	}
	wantEvents(t, s, before)
}

func testTicketNotFound(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := mustTicket(t, s, board.Ticket{ProjectSlug: "demo"})
	ctx := t.Context()
	missing := board.Ref{Project: "demo", Number: 9}
	const msg = "ticket demo#9 not found"
	_, err := s.Ticket(ctx, missing)
	wantCode(t, err, board.ENOTFOUND, msg)
	if err != nil && err.Error() != msg {
		t.Errorf("error = %q, want exactly %q", err, msg)
	}
	title := "x"
	_, err = s.UpdateTicket(ctx, missing, board.TicketPatch{Title: &title}, board.Human)
	wantCode(t, err, board.ENOTFOUND, msg)
	_, err = s.MoveTicket(ctx, missing, board.MoveRequest{To: board.Research, Actor: board.Human}, "")
	wantCode(t, err, board.ENOTFOUND, msg)
	_, err = s.AddComment(ctx, missing, board.Comment{AuthorType: board.Human, Kind: board.KindNote, Content: "hi"})
	wantCode(t, err, board.ENOTFOUND, msg)
	_, err = s.Comments(ctx, missing)
	wantCode(t, err, board.ENOTFOUND, msg)
	err = s.ResolveComments(ctx, missing, nil)
	wantCode(t, err, board.ENOTFOUND, msg)
	_, err = s.Runs(ctx, missing)
	wantCode(t, err, board.ENOTFOUND, msg)

	// A reference into an unknown project names the project.
	_, err = s.Ticket(ctx, board.Ref{Project: "nope", Number: 1})
	wantCode(t, err, board.ENOTFOUND, `project "nope" not found`)

	// The same number in another project is another ticket.
	mustProject(t, s, "other")
	_, err = s.Ticket(ctx, board.Ref{Project: "other", Number: tk.Number})
	wantCode(t, err, board.ENOTFOUND, "ticket other#1 not found")
}

func testTicketList(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "beta")
	mustProject(t, s, "alpha")
	b1 := ticketIn(t, s, "beta", board.InProgress)
	a1 := ticketIn(t, s, "alpha", board.Backlog)
	a2 := ticketIn(t, s, "alpha", board.InProgress)
	b2 := ticketIn(t, s, "beta", board.Done)
	a3 := ticketIn(t, s, "alpha", board.Research)
	if _, err := s.AddComment(ctx, a2.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindQuestion, Content: "Which API?"}); err != nil {
		t.Fatal(err)
	}
	b1, a2 = mustGet(t, s, b1.Ref()), mustGet(t, s, a2.Ref())

	for _, tc := range []struct {
		name string
		f    store.TicketFilter
		want []board.Ticket
	}{
		{"all", store.TicketFilter{}, []board.Ticket{a1, a2, a3, b1, b2}},
		{"one project", store.TicketFilter{ProjectSlug: "beta"}, []board.Ticket{b1, b2}},
		{"one state", store.TicketFilter{State: board.InProgress}, []board.Ticket{a2, b1}},
		{"project and state", store.TicketFilter{ProjectSlug: "alpha", State: board.Research}, []board.Ticket{a3}},
		{"nothing matches", store.TicketFilter{ProjectSlug: "alpha", State: board.Verification}, []board.Ticket{}},
		{"blocked", store.TicketFilter{Blocked: true}, []board.Ticket{a2}},
		{"blocked in another project", store.TicketFilter{ProjectSlug: "beta", Blocked: true}, []board.Ticket{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Tickets(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			same(t, "tickets", got, tc.want)
			n, err := s.CountTickets(ctx, tc.f)
			if err != nil || n != len(tc.want) {
				t.Errorf("CountTickets = %d, %v; want %d", n, err, len(tc.want))
			}
			if len(tc.want) > 1 { // a limit keeps the first ones, and the count ignores it
				tc.f.Limit = 1
				got, err := s.Tickets(ctx, tc.f)
				if err != nil {
					t.Fatal(err)
				}
				same(t, "tickets with limit 1", got, tc.want[:1])
				if n, _ := s.CountTickets(ctx, tc.f); n != len(tc.want) {
					t.Errorf("CountTickets with limit = %d, want %d", n, len(tc.want))
				}
			}
		})
	}
	_, err := s.Tickets(ctx, store.TicketFilter{State: "SOMEDAY"})
	wantCode(t, err, board.EINVALID, "unknown state")
	_, err = s.CountTickets(ctx, store.TicketFilter{ProjectSlug: "nope"})
	wantCode(t, err, board.ENOTFOUND, `project "nope" not found`)
	_, err = s.Tickets(ctx, store.TicketFilter{Limit: -1})
	wantCode(t, err, board.EINVALID, "limit must be 0 (all) or more")
}

func testTicketUpdate(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := mustTicket(t, s, board.Ticket{ProjectSlug: "demo", Title: "old", Criteria: []string{"one"}})
	clock.tick()

	before := lastEventID(t, s)
	title, desc, plan, branch, prio := "new title", "new description", "1. do it", "bonsai/x", 0
	criteria := []string{"first", "second"}
	got, err := s.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{
		Title: &title, Description: &desc, Plan: &plan, Branch: &branch, Priority: &prio, Criteria: &criteria,
	}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	want := tk
	want.Title, want.Description, want.Plan, want.Branch, want.Priority, want.Criteria = title, desc, plan, branch, prio, criteria
	want.UpdatedAt = got.UpdatedAt
	same(t, "updated ticket", got, want)
	if !got.UpdatedAt.After(tk.UpdatedAt) {
		t.Errorf("UpdatedAt %v not after %v", got.UpdatedAt, tk.UpdatedAt)
	}
	same(t, "updated ticket read back", mustGet(t, s, tk.Ref()), got)
	es := wantEvents(t, s, before, board.EventTicketUpdated)
	if len(es) == 1 && es[0].TicketID != tk.ID {
		t.Errorf("event ticket = %s, want %s", es[0].TicketID, tk.ID)
	}

	// An agent saves a plan.
	plan2 := "## Plan\n1. read\n2. write"
	got, err = s.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{Plan: &plan2}, board.Agent)
	if err != nil || got.Plan != plan2 {
		t.Fatalf("UpdateTicket(plan) = %q, %v", got.Plan, err)
	}

	// Nothing to change: no write, no event.
	before = lastEventID(t, s)
	again, err := s.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{Title: &title}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "no-op update", again, got)
	wantEvents(t, s, before)

	// Invalid values change nothing.
	empty, bad := "", 9
	_, err = s.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{Title: &empty}, board.Human)
	wantCode(t, err, board.EINVALID, "title is empty")
	_, err = s.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{Plan: &plan, Priority: &bad}, board.Human)
	wantCode(t, err, board.EINVALID, "priority 9")
	_, err = s.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{Title: &title}, "robot")
	wantCode(t, err, board.EINVALID, "unknown actor")
	same(t, "ticket after refused updates", mustGet(t, s, tk.Ref()), got)
	wantEvents(t, s, before)

	// A conditional update applies to the version it names, and to no other.
	stale := got.UpdatedAt.Add(-time.Millisecond)
	other := "edited on a stale page"
	_, err = s.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{Title: &other, IfUpdatedAt: &stale}, board.Human)
	wantCode(t, err, board.ECONFLICT, "changed since")
	same(t, "ticket after a stale edit", mustGet(t, s, tk.Ref()), got)
	wantEvents(t, s, before)
	clock.tick()
	current := got.UpdatedAt
	edited, err := s.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{Title: &other, IfUpdatedAt: &current}, board.Human)
	if err != nil || edited.Title != other {
		t.Fatalf("UpdateTicket on the current version = %q, %v", edited.Title, err)
	}
	_, err = s.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{Title: &title, IfUpdatedAt: &current}, board.Human)
	wantCode(t, err, board.ECONFLICT, "changed since")
}
