package storetest

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var leaseCases = []testCase{
	{"AcquireRenewRelease", testLeaseLifecycle},
	{"Limit", testLeaseLimit},
	{"Expire", testLeaseExpire},
	{"Errors", testLeaseErrors},
}

// mustLease acquires a lease or fails the test.
func mustLease(t *testing.T, s store.Store, ref board.Ref, worker string, ttl time.Duration) board.Lease {
	t.Helper()
	l, err := s.AcquireLease(t.Context(), ref, worker, ttl, 0)
	if err != nil {
		t.Fatalf("AcquireLease(%s, %s): %v", ref, worker, err)
	}
	return l
}

// leaseRefs lists the leases as "ref worker".
func leaseRefs(t *testing.T, s store.Store) []string {
	t.Helper()
	ls, err := s.Leases(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, l := range ls {
		out = append(out, l.Ref.String()+" "+l.Worker)
	}
	return out
}

// testLeaseLifecycle: a lease is one worker's, one per project, renewed
// by its worker alone, and gone once released; none of it is an event.
func testLeaseLifecycle(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	mustProject(t, s, "other")
	one := ticketIn(t, s, "demo", board.InProgress)
	two := ticketIn(t, s, "demo", board.Research)
	three := ticketIn(t, s, "other", board.Research)
	before := lastEventID(t, s)

	l := mustLease(t, s, one.Ref(), "a:1", time.Minute)
	if l.Ref != one.Ref() || l.TicketID != one.ID || l.ProjectID != one.ProjectID || l.Worker != "a:1" ||
		!l.AcquiredAt.Equal(clock.Now()) || !l.ExpiresAt.Equal(clock.Now().Add(time.Minute)) {
		t.Errorf("lease = %+v", l)
	}
	wantRecent(t, "AcquiredAt", l.AcquiredAt)
	_, err := s.AcquireLease(ctx, two.Ref(), "b:2", time.Minute, 0)
	wantCode(t, err, board.ECONFLICT, "demo#1")
	_, err = s.AcquireLease(ctx, one.Ref(), "b:2", time.Minute, 0)
	wantCode(t, err, board.ECONFLICT, "a:1")
	_, err = s.RenewLease(ctx, one.Ref(), "b:2", time.Minute)
	wantCode(t, err, board.ECONFLICT, "")

	clock.advance(30 * time.Second)
	r, err := s.RenewLease(ctx, one.Ref(), "a:1", time.Minute)
	if err != nil || !r.ExpiresAt.Equal(clock.Now().Add(time.Minute)) || !r.AcquiredAt.Equal(l.AcquiredAt) {
		t.Errorf("RenewLease = %+v, %v", r, err)
	}
	again := mustLease(t, s, one.Ref(), "a:1", 2*time.Minute) // its own: renewed
	if !again.ExpiresAt.Equal(clock.Now().Add(2*time.Minute)) || !again.AcquiredAt.Equal(l.AcquiredAt) {
		t.Errorf("acquiring its own lease again = %+v", again)
	}
	mustLease(t, s, three.Ref(), "c:3", time.Minute)
	same(t, "leases", leaseRefs(t, s), []string{"demo#1 a:1", "other#1 c:3"})

	wantCode(t, s.ReleaseLease(ctx, one.Ref(), "b:2"), board.ECONFLICT, "")
	if err := s.ReleaseLease(ctx, one.Ref(), "a:1"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.ReleaseLease(ctx, one.Ref(), "a:1"), board.ECONFLICT, "")
	_, err = s.RenewLease(ctx, one.Ref(), "a:1", time.Minute)
	wantCode(t, err, board.ECONFLICT, "")
	mustLease(t, s, two.Ref(), "b:2", time.Minute)
	same(t, "leases", leaseRefs(t, s), []string{"demo#2 b:2", "other#1 c:3"})
	wantEvents(t, s, before)
}

// testLeaseLimit: limit caps the leases held across the board; a worker
// renewing its own is not refused.
func testLeaseLimit(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	for _, slug := range []string{"a", "b", "c"} {
		mustProject(t, s, slug)
	}
	ta, tb, tc := ticketIn(t, s, "a", board.Research), ticketIn(t, s, "b", board.Research), ticketIn(t, s, "c", board.Research)
	if _, err := s.AcquireLease(ctx, ta.Ref(), "w:1", time.Minute, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AcquireLease(ctx, tb.Ref(), "w:2", time.Minute, 2); err != nil {
		t.Fatal(err)
	}
	_, err := s.AcquireLease(ctx, tc.Ref(), "w:3", time.Minute, 2)
	wantCode(t, err, board.ECONFLICT, "2")
	if _, err := s.AcquireLease(ctx, ta.Ref(), "w:1", time.Minute, 2); err != nil {
		t.Errorf("renewing through AcquireLease at the limit: %v", err)
	}
	if err := s.ReleaseLease(ctx, tb.Ref(), "w:2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AcquireLease(ctx, tc.Ref(), "w:3", time.Minute, 2); err != nil {
		t.Errorf("AcquireLease under the limit: %v", err)
	}
}

// testLeaseExpire: an expired lease holds its project until ExpireLeases
// ends it, which interrupts its worker's running run on the ticket, and
// only that run.
func testLeaseExpire(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	one := ticketIn(t, s, "demo", board.InProgress)
	two := ticketIn(t, s, "demo", board.Research)
	l := mustLease(t, s, one.Ref(), "a:1", time.Minute)
	mine, err := s.StartRun(ctx, board.Run{TicketID: one.ID, Task: board.TaskImplement, WorkerID: "a:1"})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := s.StartRun(ctx, board.Run{TicketID: two.ID, Task: board.TaskResearch, WorkerID: "a:1"})
	if err != nil {
		t.Fatal(err)
	}
	clock.advance(time.Minute - time.Millisecond)
	if ls, err := s.ExpireLeases(ctx); err != nil || len(ls) != 0 {
		t.Fatalf("ExpireLeases before the time = %+v, %v", ls, err)
	}
	clock.advance(time.Millisecond)
	_, err = s.AcquireLease(ctx, two.Ref(), "b:2", time.Minute, 0)
	wantCode(t, err, board.ECONFLICT, "expired")
	before := lastEventID(t, s)
	ls, err := s.ExpireLeases(ctx)
	if err != nil || len(ls) != 1 {
		t.Fatalf("ExpireLeases = %+v, %v", ls, err)
	}
	same(t, "expired lease", ls[0], l)
	es := wantEvents(t, s, before, board.EventRunFinished, board.EventLeaseExpired)
	if es[1].TicketID != one.ID || es[1].ProjectID != one.ProjectID || es[1].Actor != board.System {
		t.Errorf("lease.expired event = %+v", es[1])
	}
	rs, err := s.Runs(ctx, one.Ref())
	if err != nil || rs[0].ID != mine.ID || rs[0].Status != board.RunInterrupted || rs[0].Error != board.LeaseInterruptedError ||
		rs[0].FinishedAt == nil {
		t.Errorf("the lease's run = %+v, %v", rs, err)
	}
	if rs, _ := s.Runs(ctx, two.Ref()); rs[0].ID != theirs.ID || rs[0].Status != board.RunRunning {
		t.Errorf("a run on another ticket = %+v; want it still running", rs[0])
	}
	if ls, err := s.ExpireLeases(ctx); err != nil || len(ls) != 0 {
		t.Errorf("ExpireLeases again = %+v, %v", ls, err)
	}
	_, err = s.RenewLease(ctx, one.Ref(), "a:1", time.Minute)
	wantCode(t, err, board.ECONFLICT, "")
	mustLease(t, s, two.Ref(), "b:2", time.Minute)
}

// testLeaseErrors: unknown tickets and bad requests.
func testLeaseErrors(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.Research)
	_, err := s.AcquireLease(ctx, board.Ref{Project: "demo", Number: 9}, "a:1", time.Minute, 0)
	wantCode(t, err, board.ENOTFOUND, "demo#9")
	_, err = s.AcquireLease(ctx, board.Ref{Project: "nope", Number: 1}, "a:1", time.Minute, 0)
	wantCode(t, err, board.ENOTFOUND, "nope")
	_, err = s.AcquireLease(ctx, tk.Ref(), "", time.Minute, 0)
	wantCode(t, err, board.EINVALID, "worker")
	_, err = s.AcquireLease(ctx, tk.Ref(), "a:1", 0, 0)
	wantCode(t, err, board.EINVALID, "")
	_, err = s.RenewLease(ctx, tk.Ref(), "a:1", -time.Second)
	wantCode(t, err, board.EINVALID, "")
	wantCode(t, s.ReleaseLease(ctx, board.Ref{Project: "demo", Number: 9}, "a:1"), board.ENOTFOUND, "")
}
