package storetest

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// manyAgentsCases are the contract of a project whose agents work several
// tickets at once (issue 31): NextPicks and the per-project lease count.
var manyAgentsCases = []testCase{
	{"NextPicksOrder", testNextPicksOrder},
	{"NextPicksBacklog", testNextPicksBacklog},
	{"LeasesPerProject", testLeasesPerProject},
	{"NextPicksWaiting", testNextPicksWaiting},
}

// testNextPicksWaiting: NextPicks passes over a ticket whose blocker or
// sub-ticket is not DONE, as Pick does, and lists it once they are.
func testNextPicksWaiting(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	blocked := ticketIn(t, s, "demo", board.InProgress)
	clock.tick()
	blocker := ticketIn(t, s, "demo", board.InProgress)
	clock.tick()
	parent := ticketIn(t, s, "demo", board.InProgress)
	clock.tick()
	child := ticketIn(t, s, "demo", board.InProgress)
	mustLink(t, s, blocked, board.LinkBlockedBy, blocker)
	mustLink(t, s, child, board.LinkParent, parent)
	ip := " " + board.ClassInProgress.String()
	same(t, "NextPicks with a blocked ticket and a parent", nextRefs(t, s, "demo", 10),
		[]string{blocker.Ref().String() + ip, child.Ref().String() + ip})

	mustMove(t, s, blocker.Ref(), board.Verification, board.Agent)
	mustMove(t, s, blocker.Ref(), board.Done, board.Human)
	same(t, "NextPicks once the blocker is DONE", nextRefs(t, s, "demo", 10),
		[]string{blocked.Ref().String() + ip, child.Ref().String() + ip})
}

// nextRefs lists NextPicks' answer as "ref class".
func nextRefs(t *testing.T, s store.Store, slug string, n int) []string {
	t.Helper()
	ps, err := s.NextPicks(t.Context(), slug, n)
	if err != nil {
		t.Fatalf("NextPicks(%s, %d): %v", slug, n, err)
	}
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Ticket.Ref().String()+" "+p.Class.String())
	}
	return out
}

// testNextPicksOrder: NextPicks lists the pick policy's order, Pick's
// ticket first, and leaves out leased tickets and tickets a run works.
func testNextPicksOrder(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	rOld := ticketIn(t, s, "demo", board.Research)
	clock.tick()
	rNew := ticketIn(t, s, "demo", board.Research)
	ipA := ticketIn(t, s, "demo", board.InProgress)
	clock.tick()
	ipB := ticketIn(t, s, "demo", board.InProgress)
	urgent := mustTicket(t, s, board.Ticket{ProjectSlug: "demo", Title: "urgent", Priority: 0})
	urgent = mustMove(t, s, urgent.Ref(), board.Research, board.Human)
	blocked := ticketIn(t, s, "demo", board.InProgress)
	mustComment(t, s, blocked.Ref(), board.Agent, board.KindQuestion, "?")
	ticketIn(t, s, "demo", board.Backlog)
	ticketIn(t, s, "demo", board.Verification)
	clock.tick()
	mustComment(t, s, rNew.Ref(), board.Human, board.KindNote, "please look at this first")

	research, inProgress, reply := board.ClassResearch.String(), board.ClassInProgress.String(), board.ClassHumanReply.String()
	// urgent has priority 0: first of its class, after the classes before
	all := []string{rNew.Ref().String() + " " + reply, ipA.Ref().String() + " " + inProgress,
		ipB.Ref().String() + " " + inProgress, urgent.Ref().String() + " " + research, rOld.Ref().String() + " " + research}
	same(t, "NextPicks(10)", nextRefs(t, s, "demo", 10), all)
	same(t, "NextPicks(2)", nextRefs(t, s, "demo", 2), all[:2])
	wantPick(t, s, "demo", rNew, board.ClassHumanReply)

	if _, err := s.AcquireLease(ctx, rNew.Ref(), "w:1", time.Minute, 0); err != nil {
		t.Fatal(err)
	}
	mustStart(t, s, ipB, board.TaskImplement)
	same(t, "NextPicks with a lease and a running run", nextRefs(t, s, "demo", 10), []string{all[1], all[3], all[4]})
	same(t, "NextPicks(0)", nextRefs(t, s, "demo", 0), []string{})

	_, err := s.NextPicks(ctx, "nope", 3)
	wantCode(t, err, board.ENOTFOUND, "nope")
	if _, err := s.ArchiveProject(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	same(t, "NextPicks of an archived project", nextRefs(t, s, "demo", 10), []string{})
}

// testNextPicksBacklog: BACKLOG tickets come last, and only in a project
// whose agents take their backlog.
func testNextPicksBacklog(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	p := newProject("demo")
	mustProject(t, s, p.Slug)
	r := ticketIn(t, s, "demo", board.Research)
	b := ticketIn(t, s, "demo", board.Backlog)
	same(t, "NextPicks without the backlog", nextRefs(t, s, "demo", 5), []string{r.Ref().String() + " " + board.ClassResearch.String()})
	if _, err := s.UpdateProject(ctx, "demo", board.ProjectPatch{Settings: map[string]any{"takeBacklog": true}}); err != nil {
		t.Fatal(err)
	}
	same(t, "NextPicks with the backlog", nextRefs(t, s, "demo", 5), []string{
		r.Ref().String() + " " + board.ClassResearch.String(), b.Ref().String() + " " + board.ClassBacklog.String()})
}

// testLeasesPerProject: a project holds at most its max-agents leases, one
// per ticket, expired ones counted until ExpireLeases ends them.
func testLeasesPerProject(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	p := newProject("demo")
	p.Agent.MaxAgents = 2
	if _, err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	one, two, three := ticketIn(t, s, "demo", board.Research), ticketIn(t, s, "demo", board.Research), ticketIn(t, s, "demo", board.Research)
	mustLease(t, s, one.Ref(), "a:1", time.Minute)
	_, err := s.AcquireLease(ctx, one.Ref(), "b:2", time.Minute, 0)
	wantCode(t, err, board.ECONFLICT, "a:1 holds demo#1")
	mustLease(t, s, two.Ref(), "b:2", 2*time.Minute)
	_, err = s.AcquireLease(ctx, three.Ref(), "c:3", time.Minute, 0)
	wantCode(t, err, board.ECONFLICT, "max-agents 2")
	mustLease(t, s, two.Ref(), "b:2", 2*time.Minute) // its own: renewed at the limit
	same(t, "leases", leaseRefs(t, s), []string{"demo#1 a:1", "demo#2 b:2"})

	clock.advance(time.Minute)
	_, err = s.AcquireLease(ctx, three.Ref(), "c:3", time.Minute, 0)
	wantCode(t, err, board.ECONFLICT, "expired")
	if ls, err := s.ExpireLeases(ctx); err != nil || len(ls) != 1 || ls[0].Ref != one.Ref() {
		t.Fatalf("ExpireLeases = %+v, %v", ls, err)
	}
	mustLease(t, s, three.Ref(), "c:3", time.Minute)
	same(t, "leases", leaseRefs(t, s), []string{"demo#2 b:2", "demo#3 c:3"})
}
