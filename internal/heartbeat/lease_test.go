package heartbeat_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestBeat_Leases: with leases on (a board machines share), a run holds
// its ticket's lease while it runs and releases it after; a project whose
// lease another worker holds is skipped; an expired lease is ended at the
// start of the beat, its worker's run interrupted, and its ticket worked.
func TestBeat_Leases(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.WorkerID, e.opts.Leases = "here:1", e.db
	ctx := context.Background()
	e.project("demo", nil)
	e.project("busy", nil)
	tk := e.ticket("demo", "Work", board.Research)
	other := e.ticket("busy", "Theirs", board.Research)

	// Another machine's worker holds busy's lease; a third held demo's
	// with a run that its machine's death left, and the lease ran out.
	if _, err := e.db.AcquireLease(ctx, other.Ref(), "there:2", time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.AcquireLease(ctx, tk.Ref(), "gone:3", time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	dead, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskResearch, WorkerID: "gone:3"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // past the dead worker's lease

	var held []board.Lease
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		held, _ = e.db.Leases(ctx)
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	rep := e.beat()
	calls := e.runner.calls()
	if len(calls) != 1 || calls[0].Ticket.ID != tk.ID {
		t.Fatalf("runner calls = %d, want one on %s; report %+v", len(calls), tk.Ref(), rep.Runs)
	}
	var skipped string
	var leased bool
	for _, r := range rep.Runs {
		if r.Ticket == other.Ref().String() {
			skipped, leased = r.Skipped, r.Leased
		} else if r.Leased {
			t.Errorf("%s reported waiting for a lease: %+v", r.Ticket, r)
		}
	}
	if !strings.Contains(skipped, "there:2") || !leased {
		t.Errorf("busy's ticket skipped for %q (leased %v); want the other worker named, and Leased", skipped, leased)
	}
	if len(held) != 2 || held[1].Ref != tk.Ref() || held[1].Worker != "here:1" {
		t.Errorf("leases during the run = %+v; want busy's and this worker's on %s", held, tk.Ref())
	}
	rs := e.runs(tk.Ref())
	if len(rs) != 2 || rs[1].ID != dead.ID || rs[1].Status != board.RunInterrupted || rs[1].Error != board.LeaseInterruptedError ||
		rs[0].Status != board.RunCompleted || rs[0].WorkerID != "here:1" {
		t.Errorf("runs of %s = %+v", tk.Ref(), rs)
	}
	if ls, _ := e.db.Leases(ctx); len(ls) != 1 || ls[0].Worker != "there:2" {
		t.Errorf("leases after the beat = %+v; want only the other worker's", ls)
	}
}

// TestBeat_LeaseLostStopsRun: a run whose lease is ended under it (its
// renewal finds it gone) is stopped.
func TestBeat_LeaseLostStopsRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.WorkerID, e.opts.Leases, e.opts.LeaseTTL = "here:1", e.db, 30*time.Millisecond
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.Research)
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		// Another beat ends the lease (as if it had expired).
		if err := e.db.ReleaseLease(ctx, tk.Ref(), "here:1"); err != nil {
			t.Error(err)
		}
		<-ctx.Done() // the next renewal finds it gone
		return heartbeat.Outcome{Status: board.RunInterrupted, Error: context.Cause(ctx).Error()}, nil
	}
	e.beat()
	rs := e.runs(tk.Ref())
	if len(rs) != 1 || rs[0].Status != board.RunInterrupted {
		t.Errorf("runs = %+v; want the run stopped", rs)
	}
}

// unreachable is a store whose lease renewals fail once down is set, as
// over a lost connection.
type unreachable struct {
	heartbeat.Leaser
	down *atomic.Bool
}

func (u unreachable) RenewLease(ctx context.Context, ref board.Ref, worker string, ttl time.Duration) (board.Lease, error) {
	if u.down.Load() {
		return board.Lease{}, errors.New("dial tcp 10.0.0.5:5432: connect: connection refused")
	}
	return u.Leaser.RenewLease(ctx, ref, worker, ttl)
}

// TestBeat_LeaseUnrenewableStopsRun: a run that cannot renew its lease
// for a whole lease time stops, since the lease has run out on the store
// and another machine may take the ticket.
func TestBeat_LeaseUnrenewableStopsRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	down := new(atomic.Bool)
	e.opts.WorkerID, e.opts.Leases, e.opts.LeaseTTL = "here:1", unreachable{e.db, down}, 60*time.Millisecond
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.Research)
	var cause error
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		down.Store(true) // the connection is lost while the agent works
		<-ctx.Done()
		cause = context.Cause(ctx)
		return heartbeat.Outcome{Status: board.RunInterrupted, Error: cause.Error()}, nil
	}
	e.beat()
	if cause == nil || !strings.Contains(cause.Error(), "could not renew the lease") {
		t.Errorf("the run stopped for %v", cause)
	}
	if rs := e.runs(tk.Ref()); len(rs) != 1 || rs[0].Status == board.RunRunning || rs[0].Status == board.RunCompleted {
		t.Errorf("runs = %+v; want the run stopped", rs)
	}
}

// TestBeat_LeasedRunOfThisHostIsLeftAlone: on a shared board, a run of
// another data directory on this host (the same host name in its worker
// ID) whose worker holds its ticket's lease is alive: the beat leaves it
// running and its project to it, and still interrupts a run of this host
// that holds no lease (a dead beat's). Found by the race of three worker
// processes on one host (internal/cli's TestRace_WorkerProcesses).
func TestBeat_LeasedRunOfThisHostIsLeftAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.WorkerID, e.opts.Leases = "here:1", e.db
	ctx := context.Background()
	e.project("live", nil)
	e.project("dead", nil)
	live := e.ticket("live", "Theirs", board.Research)
	dead := e.ticket("dead", "Left", board.Research)
	if _, err := e.db.AcquireLease(ctx, live.Ref(), "here:2", time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	running, err := e.db.StartRun(ctx, board.Run{TicketID: live.ID, Task: board.TaskResearch, WorkerID: "here:2"})
	if err != nil {
		t.Fatal(err)
	}
	left, err := e.db.StartRun(ctx, board.Run{TicketID: dead.ID, Task: board.TaskResearch, WorkerID: "here:3"})
	if err != nil {
		t.Fatal(err)
	}
	rep := e.beat()
	if rep.Interrupted != 1 {
		t.Errorf("%d runs interrupted, want 1 (the one without a lease)", rep.Interrupted)
	}
	if rs := e.runs(live.Ref()); len(rs) != 1 || rs[0].ID != running.ID || rs[0].Status != board.RunRunning {
		t.Errorf("runs of %s = %+v; want the leased run still running, and no other", live.Ref(), rs)
	}
	if rs := e.runs(dead.Ref()); len(rs) != 2 || rs[1].ID != left.ID || rs[1].Status != board.RunInterrupted {
		t.Errorf("runs of %s = %+v; want the unleased run interrupted, then worked", dead.Ref(), rs)
	}
	for _, c := range e.runner.calls() {
		if c.Ticket.ID == live.ID {
			t.Errorf("the beat ran an agent on %s beside the run holding its lease", live.Ref())
		}
	}
}
