package heartbeat

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestLeaseKeeper holds a ticket's lease until release, refuses a second
// worker while it is held, and tells the runs whose worker holds it.
func TestLeaseKeeper(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	here := &leaseKeeper{leases: u.db, store: u.db, worker: "here:1", ttl: time.Minute, log: u.log}
	there := &leaseKeeper{leases: u.db, store: u.db, worker: "there:2", ttl: time.Minute, limit: 1, log: u.log}
	runCtx, release, skip, err := here.hold(ctx, u.ticket.Ref())
	if err != nil || skip != "" {
		t.Fatalf("hold = %q, %v; want the lease", skip, err)
	}
	if _, _, skip, err := there.hold(ctx, u.ticket.Ref()); err != nil || skip == "" {
		t.Fatalf("a second worker's hold = %q, %v; want a skip", skip, err)
	}
	run, err := u.db.StartRun(ctx, board.Run{TicketID: u.ticket.ID, Task: board.TaskImplement, WorkerID: "here:1"})
	if err != nil {
		t.Fatal(err)
	}
	held, err := here.held(ctx, []board.Run{run, {ID: "other", TicketID: u.ticket.ID, WorkerID: "there:2"}})
	if err != nil || !held[run.ID] || held["other"] {
		t.Fatalf("held = %v, %v; want only the lease holder's run", held, err)
	}
	picked, err := u.db.Ticket(ctx, u.ticket.Ref()) // as a pick reads it, after the run started
	if err != nil {
		t.Fatal(err)
	}
	if skip, err := here.stillAsPicked(ctx, picked); err != nil || skip != "" {
		t.Fatalf("stillAsPicked of an unchanged ticket = %q, %v", skip, err)
	}
	plan := "changed"
	if _, err := u.db.UpdateTicket(ctx, u.ticket.Ref(), board.TicketPatch{Plan: &plan}, board.Agent); err != nil {
		t.Fatal(err)
	}
	if skip, _ := here.stillAsPicked(ctx, picked); skip == "" {
		t.Fatal("stillAsPicked of a ticket changed since the pick did not skip it")
	}
	release()
	if runCtx.Err() == nil {
		t.Fatal("release left the run's context going")
	}
	if ls, _ := u.db.Leases(ctx); len(ls) != 0 {
		t.Fatalf("leases after release = %v", ls)
	}
}

// TestReconciler marks this machine's dead runs interrupted once their
// processes are gone, and leaves another machine's, and one whose
// processes could not be killed, running with their tickets busy.
func TestReconciler(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	other, err := u.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "elsewhere", State: board.InProgress}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	stuck, err := u.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "stuck", State: board.InProgress}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	dead, _ := u.db.StartRun(ctx, board.Run{TicketID: u.ticket.ID, Task: board.TaskImplement, WorkerID: "here:1"})
	far, _ := u.db.StartRun(ctx, board.Run{TicketID: other.ID, Task: board.TaskImplement, WorkerID: "there:2"})
	alive, _ := u.db.StartRun(ctx, board.Run{TicketID: stuck.ID, Task: board.TaskImplement, WorkerID: "here:1"})
	var reaped []string
	rp := reaper{log: u.log, reap: func(mark string) (int, error) {
		reaped = append(reaped, mark)
		if mark == runMark(alive.ID) {
			return 0, errors.New("operation not permitted")
		}
		return 1, nil
	}}
	rc := reconciler{store: u.db, reaper: rp, sessions: t.TempDir(), worker: "here:9", log: u.log}
	n, busy, err := rc.reconcile(ctx)
	if err != nil || n != 1 {
		t.Fatalf("reconcile = %d, %v; want the one dead run", n, err)
	}
	if !busy[other.ID] || !busy[stuck.ID] || busy[u.ticket.ID] {
		t.Fatalf("busy = %v, want the other machine's and the unkillable run's tickets", busy)
	}
	if len(reaped) != 2 {
		t.Fatalf("reaped %v, want this machine's two runs only (not %s)", reaped, far.ID)
	}
	runs, _ := u.db.Runs(ctx, u.ticket.Ref())
	if runs[0].ID != dead.ID || runs[0].Status != board.RunInterrupted || runs[0].Error != interruptedError {
		t.Fatalf("the dead run = %+v, want interrupted", runs[0])
	}
}
