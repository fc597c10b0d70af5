package storetest

import (
	"fmt"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var pickCases = []testCase{
	{"Empty", testPickEmpty},
	{"ClassOrder", testPickClassOrder},
	{"Priority", testPickPriority},
	{"Projects", testPickProjects},
	{"Backlog", testPickBacklog},
}

// pickRefs returns the references Pick returns, with their classes.
func pickRefs(t *testing.T, s store.Store, slug string) map[string]board.PickClass {
	t.Helper()
	picks, err := s.Pick(t.Context(), slug)
	if err != nil {
		t.Fatalf("Pick(%q): %v", slug, err)
	}
	m := map[string]board.PickClass{}
	for _, p := range picks {
		m[p.Ticket.Ref().String()] = p.Class
	}
	return m
}

// wantPick checks the single pick of project slug, and that it agrees with
// board.PickTicket over what the store reports.
func wantPick(t *testing.T, s store.Store, slug string, want board.Ticket, class board.PickClass) {
	t.Helper()
	picks, err := s.Pick(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	if len(picks) != 1 || picks[0].Ticket.ID != want.ID || picks[0].Class != class {
		t.Errorf("Pick(%s) = %+v, want %s (%s)", slug, picks, want.Ref(), class)
	}
	if len(picks) == 1 {
		same(t, "picked ticket", picks[0].Ticket, mustGet(t, s, picks[0].Ticket.Ref()))
	}
	checkPolicy(t, s)
}

// checkPolicy compares Pick("") with board.PickTicket applied to every
// active project's tickets and comments as the store reports them.
func checkPolicy(t *testing.T, s store.Store) {
	t.Helper()
	ctx := t.Context()
	ps, err := s.Projects(ctx, store.ProjectFilter{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]board.PickClass{}
	for _, p := range ps {
		ts, err := s.Tickets(ctx, store.TicketFilter{ProjectSlug: p.Slug})
		if err != nil {
			t.Fatal(err)
		}
		var cands []board.Candidate
		for _, tk := range ts {
			c := board.Candidate{Ticket: tk}
			cs, err := s.Comments(ctx, tk.Ref())
			if err != nil {
				t.Fatal(err)
			}
			for _, cm := range cs {
				if cm.AuthorType == board.Human && !cm.Resolved && cm.CreatedAt.After(c.LastHumanComment) {
					c.LastHumanComment = cm.CreatedAt
				}
			}
			ls, err := s.TicketLinks(ctx, tk.Ref())
			if err != nil {
				t.Fatal(err)
			}
			c.Waiting = len(ls.Waiting()) > 0
			cands = append(cands, c)
		}
		if pick, ok := board.PickTicket(cands, p.Agent.TakeBacklog); ok {
			want[pick.Ticket.Ref().String()] = pick.Class
		}
	}
	same(t, "Pick compared with board.PickTicket", pickRefs(t, s, ""), want)
	checkOverview(t, s)
}

// checkOverview compares Overview with Projects, TicketCounts and Pick,
// with and without archived projects.
func checkOverview(t *testing.T, s store.Store) {
	t.Helper()
	ctx := t.Context()
	counts, err := s.TicketCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	picks, err := s.Pick(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	bySlug := map[string]*board.Pick{}
	for _, p := range picks {
		tk := p.Ticket
		bySlug[tk.ProjectSlug] = &board.Pick{Class: p.Class, Ticket: board.Ticket{ProjectSlug: tk.ProjectSlug,
			Number: tk.Number, Title: tk.Title, State: tk.State, SubState: tk.SubState, Priority: tk.Priority}}
	}
	// One project runs its commands unsandboxed, which the overview shows.
	if ps, err := s.Projects(ctx, store.ProjectFilter{IncludeArchived: true}); err == nil && len(ps) > 0 {
		off := board.SandboxOff
		if _, err := s.UpdateProject(ctx, ps[0].Slug, board.ProjectPatch{Sandbox: &off}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []store.ProjectFilter{{}, {IncludeArchived: true}} {
		ps, err := s.Projects(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		want := []store.ProjectOverview{}
		for _, p := range ps {
			c := counts[p.Slug]
			if c == nil {
				c = map[board.State]int{}
			}
			want = append(want, store.ProjectOverview{
				Project: board.Project{Slug: p.Slug, Name: p.Name, Active: p.Active, Agent: board.AgentSettings{Model: p.Agent.Model,
					PermissionMode: p.Agent.PermissionMode, Sandbox: p.Agent.Sandbox}},
				Counts: c, Pick: bySlug[p.Slug]})
		}
		got, err := s.Overview(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		same(t, fmt.Sprintf("Overview(%+v) compared with Projects, TicketCounts and Pick", f), got, want)
	}
}

func testPickEmpty(t *testing.T, s store.Store, clock *clock) {
	picks, err := s.Pick(t.Context(), "")
	if err != nil || len(picks) != 0 {
		t.Errorf("Pick on an empty store = %+v, %v; want nothing", picks, err)
	}
	mustProject(t, s, "demo")
	for _, st := range []board.State{board.Backlog, board.Verification, board.Done} {
		ticketIn(t, s, "demo", st)
	}
	blocked := ticketIn(t, s, "demo", board.InProgress)
	mustComment(t, s, blocked.Ref(), board.Agent, board.KindQuestion, "?")
	picks, err = s.Pick(t.Context(), "")
	if err != nil || len(picks) != 0 {
		t.Errorf("Pick with nothing pickable = %+v, %v; want nothing", picks, err)
	}
	checkPolicy(t, s)
}

// testPickClassOrder walks one board through the four classes of the
// policy, removing the winner each time.
func testPickClassOrder(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	rOld := ticketIn(t, s, "demo", board.Research)
	clock.tick()
	rNew := ticketIn(t, s, "demo", board.Research)
	ipA := ticketIn(t, s, "demo", board.InProgress)
	clock.tick()
	ipB := ticketIn(t, s, "demo", board.InProgress)
	ret := ticketIn(t, s, "demo", board.Verification)
	ret = mustMove(t, s, ret.Ref(), board.InProgress, board.Human)
	blocked := ticketIn(t, s, "demo", board.InProgress)
	mustComment(t, s, blocked.Ref(), board.Agent, board.KindQuestion, "?")
	for _, st := range []board.State{board.Backlog, board.Verification, board.Done} {
		tk := ticketIn(t, s, "demo", st)
		mustComment(t, s, tk.Ref(), board.Human, board.KindNote, "a human comment outside the agent's states")
	}
	clock.tick()
	c := mustComment(t, s, rNew.Ref(), board.Human, board.KindNote, "please look at this first")

	// The returned ticket's feedback is an unresolved human comment too,
	// but rNew's is newer.
	wantPick(t, s, "demo", rNew, board.ClassHumanReply)
	if err := s.ResolveComments(ctx, rNew.Ref(), []string{c.ID}); err != nil {
		t.Fatal(err)
	}
	wantPick(t, s, "demo", ret, board.ClassHumanReply)
	cs, err := s.Comments(ctx, ret.Ref())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ResolveComments(ctx, ret.Ref(), []string{cs[0].ID}); err != nil {
		t.Fatal(err)
	}
	wantPick(t, s, "demo", ret, board.ClassReturned)
	mustMove(t, s, ret.Ref(), board.Verification, board.Agent)

	// Least recently updated in-progress ticket first; working it sends it
	// to the back of the queue.
	wantPick(t, s, "demo", ipA, board.ClassInProgress)
	clock.tick()
	mustStart(t, s, ipA, board.TaskImplement)
	wantPick(t, s, "demo", ipB, board.ClassInProgress)
	mustMove(t, s, ipA.Ref(), board.Verification, board.Agent)
	mustMove(t, s, ipB.Ref(), board.Verification, board.Agent)

	// Oldest research first.
	wantPick(t, s, "demo", rOld, board.ClassResearch)
	mustMove(t, s, rOld.Ref(), board.Backlog, board.Human)
	wantPick(t, s, "demo", rNew, board.ClassResearch)
}

func testPickPriority(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	old := ticketIn(t, s, "demo", board.InProgress)
	clock.tick()
	urgent := ticketIn(t, s, "demo", board.InProgress)
	wantPick(t, s, "demo", old, board.ClassInProgress)
	prio := board.PriorityUrgent
	mustUpdate(t, s, urgent.Ref(), board.TicketPatch{Priority: &prio})
	wantPick(t, s, "demo", urgent, board.ClassInProgress)

	// Class comes before priority: low-priority feedback beats urgent work.
	low := ticketIn(t, s, "demo", board.Research)
	lp := board.PriorityNone
	mustUpdate(t, s, low.Ref(), board.TicketPatch{Priority: &lp})
	mustComment(t, s, low.Ref(), board.Human, board.KindNote, "reply")
	wantPick(t, s, "demo", low, board.ClassHumanReply)
}

func testPickProjects(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	for _, slug := range []string{"zeta", "alpha", "idle", "gone"} {
		mustProject(t, s, slug)
	}
	z := ticketIn(t, s, "zeta", board.Research)
	a := ticketIn(t, s, "alpha", board.InProgress)
	ticketIn(t, s, "idle", board.Backlog)
	ticketIn(t, s, "gone", board.InProgress)
	if _, err := s.ArchiveProject(ctx, "gone"); err != nil {
		t.Fatal(err)
	}

	picks, err := s.Pick(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range picks {
		got = append(got, p.Ticket.Ref().String())
	}
	same(t, "picks by project slug", got, []string{a.Ref().String(), z.Ref().String()})
	checkPolicy(t, s)

	wantPick(t, s, "zeta", z, board.ClassResearch)
	for _, slug := range []string{"idle", "gone"} {
		picks, err := s.Pick(ctx, slug)
		if err != nil || len(picks) != 0 {
			t.Errorf("Pick(%s) = %+v, %v; want nothing", slug, picks, err)
		}
	}
}

// testPickBacklog: a project whose agents take BACKLOG tickets picks its
// most urgent, oldest BACKLOG ticket once nothing else waits; other
// projects never do; the setting can be turned on and off.
func testPickBacklog(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	auto := newProject("auto")
	auto.Agent.TakeBacklog = true
	// Settings Overview carries, which the pick ignores.
	auto.Agent.Sandbox, auto.Agent.PermissionMode = board.SandboxOff, board.ModeAsk
	if _, err := s.CreateProject(ctx, auto); err != nil {
		t.Fatal(err)
	}
	mustProject(t, s, "manual")
	old := ticketIn(t, s, "auto", board.Backlog)
	clock.tick()
	ticketIn(t, s, "auto", board.Backlog)
	ticketIn(t, s, "manual", board.Backlog)
	wantPick(t, s, "auto", old, board.ClassBacklog)
	same(t, "picks", pickRefs(t, s, ""), map[string]board.PickClass{old.Ref().String(): board.ClassBacklog})

	// Urgency first, then age.
	urgent := ticketIn(t, s, "auto", board.Backlog)
	prio := board.PriorityUrgent
	mustUpdate(t, s, urgent.Ref(), board.TicketPatch{Priority: &prio})
	wantPick(t, s, "auto", urgent, board.ClassBacklog)

	// Anything in RESEARCH or IN_PROGRESS comes first.
	r := ticketIn(t, s, "auto", board.Research)
	wantPick(t, s, "auto", r, board.ClassResearch)
	mustMove(t, s, r.Ref(), board.Backlog, board.Human)
	wantPick(t, s, "auto", urgent, board.ClassBacklog)

	// Turning the setting off leaves the backlog to people.
	off := false
	if _, err := s.UpdateProject(ctx, "auto", board.ProjectPatch{TakeBacklog: &off}); err != nil {
		t.Fatal(err)
	}
	if picks := pickRefs(t, s, ""); len(picks) != 0 {
		t.Errorf("picks with the setting off = %v, want none", picks)
	}
	checkPolicy(t, s)
	on := true
	p, err := s.UpdateProject(ctx, "auto", board.ProjectPatch{TakeBacklog: &on})
	if err != nil || !p.Agent.TakeBacklog {
		t.Fatalf("UpdateProject(take backlog) = %+v, %v", p.Agent, err)
	}
	wantPick(t, s, "auto", urgent, board.ClassBacklog)
}
