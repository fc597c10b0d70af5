package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var approvalCases = []testCase{
	{"Request", testApprovalRequest},
	{"RequestTwice", testApprovalRequestTwice},
	{"Validation", testApprovalValidation},
	{"AllowOnce", testApprovalAllowOnce},
	{"AllowAlways", testApprovalAllowAlways},
	{"AlwaysWithoutPattern", testApprovalAlwaysWithoutPattern},
	{"Deny", testApprovalDeny},
	{"DecideErrors", testApprovalDecideErrors},
}

// ask is a command held by ask mode, as the heartbeat requests it.
func ask(command, pattern string) board.Approval {
	return board.Approval{Command: command, Rule: "ask-mode", Reason: "in ask mode every command that changes something needs approval", Pattern: pattern}
}

func mustRequest(t *testing.T, s store.Store, ref board.Ref, a board.Approval) board.Approval {
	t.Helper()
	got, err := s.RequestApproval(t.Context(), ref, a, "bonsai")
	if err != nil {
		t.Fatalf("RequestApproval(%q): %v", a.Command, err)
	}
	return got
}

func mustDecide(t *testing.T, s store.Store, ref board.Ref, id string, d board.ApprovalDecision) board.Approval {
	t.Helper()
	got, err := s.DecideApproval(t.Context(), ref, id, d)
	if err != nil {
		t.Fatalf("DecideApproval: %v", err)
	}
	return got
}

func mustApprovals(t *testing.T, s store.Store, ref board.Ref) []board.Approval {
	t.Helper()
	as, err := s.Approvals(t.Context(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// granted reports whether GrantedApproval finds a grant of command on ref;
// any error but ENOTFOUND fails the test.
func granted(t *testing.T, s store.Store, ref board.Ref, command string) (board.Approval, bool) {
	t.Helper()
	a, err := s.GrantedApproval(t.Context(), ref, command)
	if board.ErrorCode(err) == board.ENOTFOUND {
		return a, false
	}
	if err != nil {
		t.Fatalf("GrantedApproval: %v", err)
	}
	return a, true
}

// testApprovalRequest: one transaction makes the pending approval, the
// agent's "permission" comment naming the command, the blocked ticket and
// the events.
func testApprovalRequest(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	run := mustStart(t, s, tk, board.TaskImplement)
	clock.tick()
	before := lastEventID(t, s)
	in := ask("touch approved.txt", "touch approved.txt")
	in.RunID = run.ID
	a := mustRequest(t, s, tk.Ref(), in)
	if a.ID == "" || a.Status != board.ApprovalPending || a.TicketID != tk.ID || a.ProjectID != tk.ProjectID ||
		a.Command != in.Command || a.Rule != in.Rule || a.Reason != in.Reason || a.Pattern != in.Pattern || a.RunID != run.ID {
		t.Errorf("requested approval = %+v, want pending with the request's fields", a)
	}
	wantRecent(t, "CreatedAt", a.CreatedAt)
	if a.DecidedAt != nil || a.Always || a.Used || a.Told {
		t.Errorf("new approval = %+v, want undecided, not always, unused, untold", a)
	}
	es := wantEvents(t, s, before, board.EventCommentAdded, board.EventApprovalAsked)
	if len(es) == 2 && es[1].Actor != board.Agent {
		t.Errorf("request event actor = %s, want agent", es[1].Actor)
	}
	if got := mustGet(t, s, tk.Ref()); got.SubState != board.SubBlocked {
		t.Errorf("ticket sub-state after the request = %q, want blocked", got.SubState)
	}
	cs, err := s.Comments(t.Context(), tk.Ref())
	if err != nil || len(cs) != 1 {
		t.Fatalf("comments = %+v, %v; want the request", cs, err)
	}
	c := cs[0]
	if c.ID != a.CommentID || c.Kind != board.KindPermission || c.AuthorType != board.Agent ||
		!strings.Contains(c.Content, "touch approved.txt") || !strings.Contains(c.Content, in.Reason) {
		t.Errorf("request comment = %+v, want the agent's permission comment naming the command and the reason", c)
	}
	same(t, "approvals", mustApprovals(t, s, tk.Ref()), []board.Approval{a})
	if _, ok := granted(t, s, tk.Ref(), in.Command); ok {
		t.Error("a pending approval grants its command")
	}
	other := ticketIn(t, s, "demo", board.InProgress)
	same(t, "approvals of another ticket", mustApprovals(t, s, other.Ref()), []board.Approval{})
}

// testApprovalRequestTwice: the identical pending command is not asked
// again; the ticket is blocked again when a person's comment unblocked it.
func testApprovalRequestTwice(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	a := mustRequest(t, s, tk.Ref(), ask("make deploy", ""))
	before := lastEventID(t, s)
	again := mustRequest(t, s, tk.Ref(), ask("make deploy", ""))
	same(t, "second request of a blocked ticket", again, a)
	wantEvents(t, s, before)

	mustComment(t, s, tk.Ref(), board.Human, board.KindNote, "what is it for?")
	if got := mustGet(t, s, tk.Ref()); got.SubState != board.SubNone {
		t.Fatalf("sub-state after a person's comment = %q, want none", got.SubState)
	}
	clock.tick()
	before = lastEventID(t, s)
	again = mustRequest(t, s, tk.Ref(), ask("make deploy", ""))
	same(t, "second request after an answer", again, a)
	wantEvents(t, s, before, board.EventApprovalAsked)
	if got := mustGet(t, s, tk.Ref()); got.SubState != board.SubBlocked {
		t.Errorf("sub-state after the repeated request = %q, want blocked", got.SubState)
	}

	// A different command is a new approval.
	b := mustRequest(t, s, tk.Ref(), ask("make release", ""))
	if b.ID == a.ID {
		t.Error("another command reused the pending approval")
	}
	if n := len(mustApprovals(t, s, tk.Ref())); n != 2 {
		t.Errorf("%d approvals, want 2", n)
	}
}

func testApprovalValidation(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	before := lastEventID(t, s)
	for _, tc := range []struct {
		name string
		a    board.Approval
		msg  string
	}{
		{"empty", ask(" \n", ""), "empty"},
		{"too long", ask("echo "+strings.Repeat("x", board.MaxApprovalCommand), ""), "at most"},
		{"nul", ask("echo a\x00b", ""), "control character"},
		{"escape", ask("echo \x1b[2Jhi", ""), "control character"},
		{"not UTF-8", ask("echo \xff", ""), "UTF-8"},
		{"pattern with a newline", ask("ls", "ls\nrm"), "control character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.RequestApproval(t.Context(), tk.Ref(), tc.a, "bonsai")
			wantCode(t, err, board.EINVALID, tc.msg)
		})
	}
	_, err := s.RequestApproval(t.Context(), board.Ref{Project: "demo", Number: 99}, ask("ls", ""), "bonsai")
	wantCode(t, err, board.ENOTFOUND, "")
	same(t, "ticket after refused requests", mustGet(t, s, tk.Ref()), tk)
	same(t, "approvals after refused requests", mustApprovals(t, s, tk.Ref()), []board.Approval{})
	wantEvents(t, s, before)
}

// testApprovalAllowOnce: allowed once, the command runs once on this
// ticket only.
func testApprovalAllowOnce(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	other := ticketIn(t, s, "demo", board.InProgress)
	a := mustRequest(t, s, tk.Ref(), ask("touch x", "touch x"))
	clock.tick()
	before := lastEventID(t, s)
	d := mustDecide(t, s, tk.Ref(), a.ID, board.ApprovalDecision{Allow: true, Note: " go ahead \r\nbut only once ", By: "ana"})
	if d.Status != board.ApprovalAllowed || d.Always || d.Note != "go ahead \nbut only once" || d.DecidedBy != "ana" || d.DecidedAt == nil {
		t.Errorf("decided approval = %+v, want allowed once by ana with the trimmed note", d)
	}
	wantEvents(t, s, before, board.EventCommentAdded, board.EventApprovalDecided)
	got := mustGet(t, s, tk.Ref())
	if got.SubState != board.SubNone {
		t.Errorf("sub-state after the decision = %q, want none", got.SubState)
	}
	cs, _ := s.Comments(t.Context(), tk.Ref())
	last := cs[len(cs)-1]
	if last.AuthorType != board.Human || last.AuthorName != "ana" || last.Kind != board.KindPermission ||
		!strings.Contains(last.Content, "touch x") || !strings.Contains(last.Content, "but only once") {
		t.Errorf("decision comment = %+v, want ana's permission comment with the command and the note", last)
	}
	// The person's comment makes the ticket the next pick, for the answer.
	picks, err := s.Pick(t.Context(), "demo")
	if err != nil || len(picks) != 1 || picks[0].Ticket.ID != tk.ID || picks[0].Class != board.ClassHumanReply {
		t.Errorf("Pick after the decision = %+v, %v; want %s for its human comment", picks, err, tk.Ref())
	}
	if p := mustProjectGet(t, s, "demo"); len(p.Agent.Allow) != 0 {
		t.Errorf("allow once changed the project's Allow list to %q", p.Agent.Allow)
	}

	g, ok := granted(t, s, tk.Ref(), "touch x")
	if !ok || g.ID != a.ID {
		t.Fatalf("GrantedApproval = %+v, %v; want the approval", g, ok)
	}
	for _, cmd := range []string{"touch  x", "touch x ", "touch y"} {
		if _, ok := granted(t, s, tk.Ref(), cmd); ok {
			t.Errorf("a grant of %q lets %q run", "touch x", cmd)
		}
	}
	if _, ok := granted(t, s, other.Ref(), "touch x"); ok {
		t.Error("a once-only grant lets the command run on another ticket")
	}
	before = lastEventID(t, s)
	if err := s.UseApproval(t.Context(), tk.Ref(), a.ID); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, s, before, board.EventApprovalUsed)
	if _, ok := granted(t, s, tk.Ref(), "touch x"); ok {
		t.Error("a used once-only grant still lets the command run")
	}
	wantCode(t, s.UseApproval(t.Context(), tk.Ref(), a.ID), board.ECONFLICT, "")
	wantCode(t, s.UseApproval(t.Context(), other.Ref(), a.ID), board.ENOTFOUND, "")

	// Telling the agent.
	before = lastEventID(t, s)
	if err := s.MarkApprovalsTold(t.Context(), tk.Ref(), []string{a.ID, a.ID}); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, s, before, board.EventApprovalTold)
	if as := mustApprovals(t, s, tk.Ref()); !as[0].Told || !as[0].Used {
		t.Errorf("approval after use and telling = %+v, want used and told", as[0])
	}
	before = lastEventID(t, s)
	if err := s.MarkApprovalsTold(t.Context(), tk.Ref(), []string{a.ID}); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, s, before)
	pending := mustRequest(t, s, tk.Ref(), ask("touch z", ""))
	wantCode(t, s.MarkApprovalsTold(t.Context(), tk.Ref(), []string{pending.ID}), board.ECONFLICT, "pending")
	wantCode(t, s.MarkApprovalsTold(t.Context(), other.Ref(), []string{a.ID}), board.ENOTFOUND, "")
}

// testApprovalAllowAlways: allowed always, the identical command runs on
// every ticket of the project, and its pattern joins the Allow list.
func testApprovalAllowAlways(t *testing.T, s store.Store, clock *clock) {
	p := mustProject(t, s, "demo")
	mustProject(t, s, "other")
	keep := []string{"go test *"}
	if _, err := s.UpdateProject(t.Context(), "demo", board.ProjectPatch{Allow: &keep}); err != nil {
		t.Fatal(err)
	}
	tk := ticketIn(t, s, "demo", board.InProgress)
	later := ticketIn(t, s, "demo", board.Research)
	elsewhere := ticketIn(t, s, "other", board.InProgress)
	a := mustRequest(t, s, tk.Ref(), ask("touch approved.txt", "touch approved.txt"))
	clock.tick()
	before := lastEventID(t, s)
	d := mustDecide(t, s, tk.Ref(), a.ID, board.ApprovalDecision{Allow: true, Always: true, By: "ana"})
	if d.Status != board.ApprovalAllowed || !d.Always || d.Pattern != "touch approved.txt" {
		t.Errorf("decided approval = %+v, want allowed always with its pattern", d)
	}
	wantEvents(t, s, before, board.EventProjectUpdated, board.EventCommentAdded, board.EventApprovalDecided)
	if got := mustProjectGet(t, s, "demo"); !slices.Equal(got.Agent.Allow, []string{"go test *", "touch approved.txt"}) {
		t.Errorf("Allow list = %q, want the pattern appended", got.Agent.Allow)
	}
	for _, ref := range []board.Ref{tk.Ref(), later.Ref()} {
		if g, ok := granted(t, s, ref, "touch approved.txt"); !ok || g.ID != a.ID {
			t.Errorf("GrantedApproval on %s = %+v, %v; want the always-grant", ref, g, ok)
		}
	}
	if _, ok := granted(t, s, elsewhere.Ref(), "touch approved.txt"); ok {
		t.Error("an always-grant lets the command run in another project")
	}
	// Using it changes nothing: it stays.
	before = lastEventID(t, s)
	if err := s.UseApproval(t.Context(), later.Ref(), a.ID); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, s, before)
	if _, ok := granted(t, s, tk.Ref(), "touch approved.txt"); !ok {
		t.Error("an always-grant was used up")
	}
	wantCode(t, s.UseApproval(t.Context(), elsewhere.Ref(), a.ID), board.ENOTFOUND, "")

	// A second always-grant of a listed pattern leaves the list alone.
	b := mustRequest(t, s, later.Ref(), ask("go test *", "go test *"))
	before = lastEventID(t, s)
	d = mustDecide(t, s, later.Ref(), b.ID, board.ApprovalDecision{Allow: true, Always: true, By: "ana"})
	if d.Pattern != "" {
		t.Errorf("pattern of an approval already on the list = %q, want none", d.Pattern)
	}
	wantEvents(t, s, before, board.EventCommentAdded, board.EventApprovalDecided)
	if got := mustProjectGet(t, s, "demo"); len(got.Agent.Allow) != 2 || got.ID != p.ID {
		t.Errorf("Allow list = %q, want it unchanged", got.Agent.Allow)
	}
}

// testApprovalAlwaysWithoutPattern: a command that is no pattern is
// granted by the approval alone.
func testApprovalAlwaysWithoutPattern(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	later := ticketIn(t, s, "demo", board.InProgress)
	cmd := "make build | tee build.log"
	a := mustRequest(t, s, tk.Ref(), ask(cmd, ""))
	mustDecide(t, s, tk.Ref(), a.ID, board.ApprovalDecision{Allow: true, Always: true, By: "ana"})
	if got := mustProjectGet(t, s, "demo"); len(got.Agent.Allow) != 0 {
		t.Errorf("Allow list = %q, want none", got.Agent.Allow)
	}
	if _, ok := granted(t, s, later.Ref(), cmd); !ok {
		t.Error("the always-grant does not let the identical command run on another ticket")
	}
	// Once and always grants of one command: the ticket's once-grant is
	// used first.
	b := mustRequest(t, s, later.Ref(), ask("make clean", ""))
	mustDecide(t, s, later.Ref(), b.ID, board.ApprovalDecision{Allow: true, By: "ana"})
	c := mustRequest(t, s, tk.Ref(), ask("make clean", ""))
	mustDecide(t, s, tk.Ref(), c.ID, board.ApprovalDecision{Allow: true, Always: true, By: "ana"})
	if g, ok := granted(t, s, later.Ref(), "make clean"); !ok || g.ID != b.ID {
		t.Errorf("GrantedApproval = %+v, %v; want the once-grant %s first", g, ok, b.ID)
	}
}

// testApprovalDeny: a denial grants nothing and carries the note.
func testApprovalDeny(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	a := mustRequest(t, s, tk.Ref(), ask("rm -r vendor", "rm -r vendor"))
	d := mustDecide(t, s, tk.Ref(), a.ID, board.ApprovalDecision{Note: "keep vendor; use go mod tidy", By: "ana"})
	if d.Status != board.ApprovalDenied || d.Always || d.Note != "keep vendor; use go mod tidy" {
		t.Errorf("denied approval = %+v", d)
	}
	if _, ok := granted(t, s, tk.Ref(), "rm -r vendor"); ok {
		t.Error("a denial grants the command")
	}
	if got := mustGet(t, s, tk.Ref()); got.SubState != board.SubNone {
		t.Errorf("sub-state after a denial = %q, want none", got.SubState)
	}
	if p := mustProjectGet(t, s, "demo"); len(p.Agent.Allow) != 0 {
		t.Errorf("a denial changed the Allow list to %q", p.Agent.Allow)
	}
	wantCode(t, s.UseApproval(t.Context(), tk.Ref(), a.ID), board.ECONFLICT, "")
}

// testApprovalDecideErrors: unknown ids, deciding twice and bad decisions
// are refused and change nothing.
func testApprovalDecideErrors(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	other := ticketIn(t, s, "demo", board.InProgress)
	a := mustRequest(t, s, tk.Ref(), ask("touch x", "touch x"))
	before := lastEventID(t, s)
	_, err := s.DecideApproval(t.Context(), tk.Ref(), "nope", board.ApprovalDecision{Allow: true, By: "ana"})
	wantCode(t, err, board.ENOTFOUND, "nope")
	_, err = s.DecideApproval(t.Context(), other.Ref(), a.ID, board.ApprovalDecision{Allow: true, By: "ana"})
	wantCode(t, err, board.ENOTFOUND, "")
	_, err = s.DecideApproval(t.Context(), tk.Ref(), a.ID, board.ApprovalDecision{Always: true, By: "ana"})
	wantCode(t, err, board.EINVALID, "always")
	_, err = s.DecideApproval(t.Context(), tk.Ref(), a.ID, board.ApprovalDecision{Allow: true, Note: "a\x1b[31mred", By: "ana"})
	wantCode(t, err, board.EINVALID, "control character")
	_, err = s.DecideApproval(t.Context(), tk.Ref(), a.ID, board.ApprovalDecision{Allow: true, Note: strings.Repeat("n", board.MaxApprovalNote+1), By: "ana"})
	wantCode(t, err, board.EINVALID, "limit")
	wantEvents(t, s, before)
	same(t, "approvals after refused decisions", mustApprovals(t, s, tk.Ref()), []board.Approval{a})

	mustDecide(t, s, tk.Ref(), a.ID, board.ApprovalDecision{Allow: true, By: "ana"})
	before = lastEventID(t, s)
	_, err = s.DecideApproval(t.Context(), tk.Ref(), a.ID, board.ApprovalDecision{By: "bob"})
	wantCode(t, err, board.ECONFLICT, "already allowed by ana")
	wantEvents(t, s, before)
	if as := mustApprovals(t, s, tk.Ref()); as[0].Status != board.ApprovalAllowed || as[0].DecidedBy != "ana" {
		t.Errorf("approval after a second decision = %+v, want ana's", as[0])
	}
}
