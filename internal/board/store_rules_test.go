package board

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// The rules below moved out of the store (issue 26); the store contract
// suite runs them through both stores, these tests run them alone.

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// TestCheckLeaseRoom: a project under its max-agents and a board under
// its limit have room; a full project names its holders (an expired
// lease first), a full board its count.
func TestCheckLeaseRoom(t *testing.T) {
	live := Lease{Ref: Ref{Project: "demo", Number: 1}, Worker: "a:1", ExpiresAt: t0.Add(time.Minute)}
	dead := Lease{Ref: Ref{Project: "demo", Number: 2}, Worker: "b:2", ExpiresAt: t0.Add(-time.Second)}
	for _, c := range []struct {
		max          int
		held         []Lease
		total, limit int
		want         string
	}{
		{2, []Lease{live}, 5, 0, ""},
		{2, []Lease{live}, 5, 6, ""},
		{1, []Lease{live}, 1, 0, "project demo already has an agent: a:1 holds demo#1 until"},
		{2, []Lease{live, dead}, 2, 0, "b:2's lease on demo#2 expired at"},
		{2, []Lease{live, {Ref: Ref{Project: "demo", Number: 3}, Worker: "c:3", ExpiresAt: t0.Add(time.Hour)}}, 2, 0,
			"already has its 2 agents (max-agents 2): a:1 holds demo#1, c:3 holds demo#3"},
		{3, []Lease{live}, 4, 4, "4 agents already run, the limit"},
	} {
		err := CheckLeaseRoom("demo", c.max, c.held, c.total, c.limit, t0)
		if c.want == "" && err != nil || c.want != "" && (ErrorCode(err) != ECONFLICT || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckLeaseRoom(max %d, %d held, %d/%d) = %v, want %q", c.max, len(c.held), c.total, c.limit, err, c.want)
		}
	}
	if err := live.Held(t0); !strings.Contains(err.Error(), "a:1 holds demo#1 until 2026-05-01T12:01:00Z") {
		t.Errorf("Held = %v", err)
	}
}

// TestScheduleNormal_CheckDue: a stored schedule gets its defaults and
// millisecond times; it is due only at its NextFire, unpaused.
func TestScheduleNormal_CheckDue(t *testing.T) {
	s := Schedule{ProjectSlug: "demo", Name: "n", NextFire: t0.Add(1500 * time.Microsecond)}.Normal()
	if s.StartState != Backlog || s.Overlap != OverlapSkip || s.Criteria == nil || !s.Anchor.IsZero() ||
		!s.NextFire.Equal(t0.Add(time.Millisecond)) {
		t.Errorf("Normal = %+v", s)
	}
	if err := s.CheckDue(s.NextFire); err != nil {
		t.Errorf("CheckDue(NextFire) = %v", err)
	}
	s.Paused = true
	for _, due := range []time.Time{s.NextFire, t0} {
		if err := s.CheckDue(due); ErrorCode(err) != ECONFLICT || !strings.Contains(err.Error(), "schedule demo/n is no longer due") {
			t.Errorf("CheckDue(%s) = %v, want ECONFLICT", due, err)
		}
		s.Paused = false
	}
}

// TestFireCheck: a firing that creates a ticket needs a valid one.
func TestFireCheck(t *testing.T) {
	if _, err := (Fire{Outcome: FiringCreated}).Check(); ErrorCode(err) != EINVALID {
		t.Errorf("no ticket: %v", err)
	}
	if _, err := (Fire{Outcome: FiringCreated, Ticket: &Ticket{ProjectSlug: "demo"}}).Check(); ErrorCode(err) != EINVALID {
		t.Errorf("ticket without a title: %v", err)
	}
	f, err := Fire{Outcome: FiringCreated, Ticket: &Ticket{ProjectSlug: "demo", Title: "t"}}.Check()
	if err != nil || f.Ticket.State != Backlog {
		t.Errorf("Check = %+v, %v", f.Ticket, err)
	}
	if _, err := (Fire{Outcome: FiringFailed}).Check(); err != nil {
		t.Errorf("a failed firing needs no ticket: %v", err)
	}
}

// TestCheckVariants: only an IN_PROGRESS ticket, not blocked, not itself
// a variant, without variants or a run in flight, runs N ways.
func TestCheckVariants(t *testing.T) {
	ok := Ticket{ProjectSlug: "demo", Number: 4, State: InProgress}
	blocked := ok
	blocked.SubState = SubBlocked
	research := ok
	research.State = Research
	for _, c := range []struct {
		t                       Ticket
		variant, inFlight, runs bool
		want                    string
	}{
		{ok, false, false, false, ""},
		{ok, true, false, false, "it is itself a variant"},
		{ok, false, true, false, "its variants are still in flight"},
		{research, false, false, false, "it is in RESEARCH"},
		{blocked, false, false, false, "it is blocked waiting for a person"},
		{ok, false, false, true, "an agent is running on it"},
	} {
		err := CheckVariants(c.t, c.variant, c.inFlight, c.runs)
		if c.want == "" && err != nil || c.want != "" && (ErrorCode(err) != EREFUSED || !strings.Contains(err.Error(), "demo#4: "+c.want)) {
			t.Errorf("CheckVariants(%+v) = %v, want %q", c, err, c.want)
		}
	}
}

// TestCommentOf: an event's own comment; for a move, the completion
// comment its mover posted just before, across that comment's files only.
func TestCommentOf(t *testing.T) {
	ev := func(typ EventType, actor Actor, data map[string]any) Event {
		b, _ := json.Marshal(data)
		return Event{Type: typ, Actor: actor, Data: b}
	}
	move := ev(EventTicketMoved, Agent, map[string]any{"to": "VERIFICATION"})
	done := ev(EventCommentAdded, Agent, map[string]any{"commentId": "c1", "kind": "completion"})
	file := ev(EventAttachmentAdded, Agent, map[string]any{"attachmentId": "a1"})
	for _, c := range []struct {
		e      Event
		before []Event
		want   string
	}{
		{done, nil, "c1"},
		{move, []Event{file, file, done}, "c1"},
		{move, []Event{done}, "c1"},
		{move, []Event{ev(EventAttachmentAdded, Human, nil), done}, ""},
		{move, []Event{ev(EventCommentAdded, Agent, map[string]any{"commentId": "c2", "kind": "question"})}, ""},
		{move, nil, ""},
		{ev(EventRunStarted, System, map[string]any{"runId": "r"}), []Event{done}, ""},
	} {
		if got := CommentOf(c.e, c.before); got != c.want {
			t.Errorf("CommentOf(%s after %d) = %q, want %q", c.e.Type, len(c.before), got, c.want)
		}
	}
	if f := (Event{Data: json.RawMessage(`not json`)}).Field("x"); f != "" {
		t.Errorf("Field of bad data = %q", f)
	}
}

// TestLinksAdd_NewSubTickets: links are filed by direction and kind;
// sub-tickets are checked and made in the parent's project.
func TestLinksAdd_NewSubTickets(t *testing.T) {
	ls := NewLinks()
	o := func(n int) LinkedTicket { return LinkedTicket{Ref: Ref{Project: "demo", Number: n}} }
	ls.Add(true, LinkParent, o(1))
	ls.Add(true, LinkBlockedBy, o(2))
	ls.Add(false, LinkParent, o(3))
	ls.Add(false, LinkBlockedBy, o(4))
	if ls.Parent == nil || ls.Parent.Ref.Number != 1 || len(ls.BlockedBy) != 1 || ls.BlockedBy[0].Ref.Number != 2 ||
		len(ls.Children) != 1 || ls.Children[0].Ref.Number != 3 || len(ls.Blocks) != 1 || ls.Blocks[0].Ref.Number != 4 {
		t.Errorf("Links = %+v", ls)
	}
	parent := Ref{Project: "demo", Number: 1}
	ts, err := NewSubTickets(parent, []Ticket{{Title: "a"}, {Title: "b", ProjectSlug: "other"}}, Comment{})
	if err != nil || len(ts) != 2 || ts[1].ProjectSlug != "demo" || ts[0].State != Backlog {
		t.Errorf("NewSubTickets = %+v, %v", ts, err)
	}
	for _, c := range []struct {
		ts   []Ticket
		c    Comment
		want string
	}{
		{nil, Comment{}, "give 1 to 10 sub-tickets at once, not 0"},
		{make([]Ticket, MaxSplit+1), Comment{}, "not 11"},
		{[]Ticket{{Title: "a"}, {}}, Comment{}, "sub-ticket 2:"},
		{[]Ticket{{Title: "a"}}, Comment{Content: "x", AuthorType: "robot"}, ""},
	} {
		_, err := NewSubTickets(parent, c.ts, c.c)
		if ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewSubTickets(%d, %+v) = %v, want EINVALID %q", len(c.ts), c.c, err, c.want)
		}
	}
}

// TestOutcomeSettle_BlockerChanges: a delivery's outcome as its row
// keeps it; the blockers gone and added.
func TestOutcomeSettle_BlockerChanges(t *testing.T) {
	long := strings.Repeat("x", 1200)
	for _, c := range []struct {
		o           Outcome
		status, err string
		retry       bool
	}{
		{Outcome{Sent: true, Err: "ignored"}, "sent", "", false},
		{Outcome{Err: "503", RetryAt: t0}, "pending", "503", true},
		{Outcome{Err: long}, "failed", long[:1000] + "…", false},
	} {
		status, err, retry := c.o.Settle()
		if status != c.status || err != c.err || retry != c.retry {
			t.Errorf("Settle(%+v) = %s, %d bytes, %v", c.o, status, len(err), retry)
		}
	}
	gone, added := BlockerChanges([]string{"a", "b"}, []string{"b", "c", "", "c"})
	if !slices.Equal(gone, []string{"a"}) || !slices.Equal(added, []string{"c"}) {
		t.Errorf("BlockerChanges = %q, %q", gone, added)
	}
}

// TestRunStart: a known task; a run started on a ticket is running in
// its project, with the ticket's session key and no usage yet.
func TestRunStart(t *testing.T) {
	if err := TaskKind("nap").Check(); ErrorCode(err) != EINVALID {
		t.Errorf("Check(nap) = %v", err)
	}
	if err := TaskVerify.Check(); err != nil {
		t.Errorf("Check(verify) = %v", err)
	}
	tk := Ticket{ID: "t1", ProjectID: "p1", ProjectSlug: "demo", Number: 3}
	r, err := Run{Task: TaskImplement, Status: RunCompleted, Usage: Usage{InputTokens: 9}, Error: "x", Turns: 2}.Start(tk, "r1", t0)
	if err != nil || r.ID != "r1" || r.ProjectID != "p1" || r.Ref() != tk.Ref() || r.Status != RunRunning ||
		r.SessionKey != SessionKey("p1", "t1") || r.Usage != (Usage{}) || r.Error != "" || r.Turns != 0 || !r.StartedAt.Equal(t0) {
		t.Errorf("Start = %+v, %v", r, err)
	}
	if _, err := (Run{Task: TaskImplement, ProjectID: "p2"}).Start(tk, "r2", t0); ErrorCode(err) != EINVALID {
		t.Errorf("Start in another project = %v", err)
	}
}

// TestClipDetail: a detail is cut to MaxDeliveryDetail bytes, never
// inside a rune.
func TestClipDetail(t *testing.T) {
	if s := ClipDetail("short"); s != "short" {
		t.Errorf("ClipDetail(short) = %q", s)
	}
	s := ClipDetail(strings.Repeat("a", MaxDeliveryDetail-1) + "é")
	if len(s) != MaxDeliveryDetail-1 {
		t.Errorf("ClipDetail cut inside a rune: %d bytes", len(s))
	}
}

// TestCheckVariantRequest_VariantTicket: a request names a known actor,
// 2 to 5 specs and a valid comment or none; a variant's ticket copies
// its ticket's work into IN_PROGRESS.
func TestCheckVariantRequest_VariantTicket(t *testing.T) {
	for _, c := range []struct {
		a    Actor
		n    int
		c    Comment
		want string
	}{
		{"robot", 2, Comment{}, "unknown actor"},
		{Human, 1, Comment{}, "give 2 to 5 variants, not 1"},
		{Human, 6, Comment{}, "not 6"},
		{Human, 2, Comment{Content: "x", AuthorType: "robot"}, ""},
	} {
		if err := CheckVariantRequest(c.a, c.n, c.c); ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckVariantRequest(%s, %d) = %v, want %q", c.a, c.n, err, c.want)
		}
	}
	if err := CheckVariantRequest(Human, 3, Comment{}); err != nil {
		t.Errorf("CheckVariantRequest = %v", err)
	}
	tk := Ticket{ProjectSlug: "demo", Number: 2, Title: "t", Description: "d", Criteria: []string{"c"}, Plan: "p", Priority: 1}
	w, err := VariantTicket(tk, 2, VariantSpec{EngineBonsai, "fake/m"})
	if err != nil || w.State != InProgress || w.Description != "d" || w.Plan != "p" || w.Priority != 1 ||
		!slices.Equal(w.Criteria, tk.Criteria) || !strings.Contains(w.Title, "variant 2 of demo#2") {
		t.Errorf("VariantTicket = %+v, %v", w, err)
	}
}

// TestTrackerLimitKept: an empty limit is none to keep; a kept one has
// its time at the millisecond and its detail clipped.
func TestTrackerLimitKept(t *testing.T) {
	if l, keep := (TrackerLimit{ProjectSlug: "demo", Detail: "x"}).Kept(); keep || l != (TrackerLimit{ProjectSlug: "demo"}) {
		t.Errorf("Kept(empty) = %+v, %v", l, keep)
	}
	l, keep := TrackerLimit{Until: t0.Add(time.Microsecond), Detail: strings.Repeat("d", 600)}.Kept()
	if !keep || !l.Until.Equal(t0) || len(l.Detail) != MaxDeliveryDetail {
		t.Errorf("Kept = %+v, %v", l, keep)
	}
}
