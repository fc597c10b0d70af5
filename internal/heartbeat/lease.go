package heartbeat

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Leaser is the store's leases (store.Leases), for a board several
// machines share: a run holds its ticket's lease, one per ticket and at
// most the project's max-agents per project, so the machines together
// run no more agents in a project than it allows and never two on one
// ticket, and a machine that dies loses its leases, whose runs the next
// beat anywhere interrupts.
type Leaser interface {
	AcquireLease(ctx context.Context, ref board.Ref, worker string, ttl time.Duration, limit int) (board.Lease, error)
	RenewLease(ctx context.Context, ref board.Ref, worker string, ttl time.Duration) (board.Lease, error)
	ReleaseLease(ctx context.Context, ref board.Ref, worker string) error
	ExpireLeases(ctx context.Context) ([]board.Lease, error)
	Leases(ctx context.Context) ([]board.Lease, error)
}

// DefaultLeaseTTL is how long a lease lasts without renewal; a run
// renews it every third of that.
const DefaultLeaseTTL = board.DefaultLeaseTTL

// leaseHint says where a global limit comes from, for a skipped run's
// reason: a lease is refused when another worker holds the ticket, when
// the project's max-agents leases are held, or when limit leases are
// held across the board.
func leaseHint(limit int) string {
	if limit <= 0 {
		return ""
	}
	return fmt.Sprintf(" (heartbeat.maxConcurrentAgents %d holds across the machines sharing the board)", limit)
}

// leaseStore is what the lease keeper reads besides the leases: a
// ticket's runs and the ticket.
type leaseStore interface {
	Runs(ctx context.Context, ref board.Ref) ([]board.Run, error)
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
}

// leaseKeeper holds this worker's ticket leases on a board several
// machines share (Options.Leases), and ends the leases of workers that
// stopped renewing theirs.
type leaseKeeper struct {
	leases Leaser
	store  leaseStore
	worker string        // Options.WorkerID
	ttl    time.Duration // Options.LeaseTTL
	limit  int           // Options.GlobalLimit
	reaper reaper
	log    *slog.Logger
}

// expire ends the leases of workers that stopped renewing them,
// interrupting their runs, so their tickets are free this beat.
func (k *leaseKeeper) expire(ctx context.Context) {
	ls, err := k.leases.ExpireLeases(ctx)
	if err != nil {
		k.log.Error("expire leases", "err", err)
		return
	}
	for _, l := range ls {
		k.log.Warn("lease expired: its worker stopped renewing it", "ticket", l.Ref, "worker", l.Worker)
		if !otherMachine(l.Worker, k.worker) {
			k.reapExpired(ctx, l)
		}
	}
}

// reapExpired kills what the run an expired lease of this host held left
// running (commands that left their process group), as reconcile does for
// a dead beat's runs: on a shared board those wait for their lease to run
// out. A failure is logged.
func (k *leaseKeeper) reapExpired(ctx context.Context, l board.Lease) {
	runs, err := k.store.Runs(ctx, l.Ref)
	if err != nil {
		k.log.Error("read the runs of an expired lease", "ticket", l.Ref, "err", err)
		return
	}
	for _, r := range runs { // newest first: the run the lease held
		if r.WorkerID == l.Worker && r.Status == board.RunInterrupted && r.Error == board.LeaseInterruptedError {
			k.reaper.kill(r.ID)
			return
		}
	}
}

// hold takes the ticket's lease for this beat's worker and renews it
// until release is called, which also releases it. When a renewal finds
// the lease gone (it expired and another beat ended it), or no renewal has
// succeeded for a whole ttl (the store is out of reach, so the lease has
// expired there), the returned context is cancelled: the run must stop,
// as its work may no longer be its own. When another worker holds the
// ticket, or the project's or the global limit's leases are held, skip
// says so and nothing is held.
func (k *leaseKeeper) hold(ctx context.Context, ref board.Ref) (runCtx context.Context, release func(), skip string, err error) {
	if _, err := k.leases.AcquireLease(ctx, ref, k.worker, k.ttl, k.limit); err != nil {
		if board.ErrorCode(err) == board.ECONFLICT {
			return nil, nil, "no lease: " + err.Error() + leaseHint(k.limit), nil
		}
		return nil, nil, "", err
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { k.renew(runCtx, ref, done, cancel) })
	release = func() {
		close(done)
		wg.Wait()
		if err := k.leases.ReleaseLease(context.WithoutCancel(ctx), ref, k.worker); err != nil {
			k.log.Warn("release lease", "ticket", ref, "err", err)
		}
		cancel(nil)
	}
	return runCtx, release, "", nil
}

// renew renews the lease on ref every third of its ttl until done closes
// or runCtx ends, cancelling runCtx when the lease is lost or was not
// renewed for a whole ttl.
func (k *leaseKeeper) renew(runCtx context.Context, ref board.Ref, done <-chan struct{}, cancel context.CancelCauseFunc) {
	tick := time.NewTicker(k.ttl / 3)
	defer tick.Stop()
	renewed := time.Now()
	for {
		select {
		case <-done:
			return
		case <-runCtx.Done():
			return
		case <-tick.C:
		}
		_, err := k.leases.RenewLease(runCtx, ref, k.worker, k.ttl)
		switch {
		case board.ErrorCode(err) == board.ECONFLICT:
			k.log.Error("lease lost; stopping the run", "ticket", ref, "err", err)
			cancel(fmt.Errorf("the lease on %s was lost: %w", ref, err))
			return
		case err != nil && time.Since(renewed) >= k.ttl:
			// The lease has run out by now, and another machine
			// may take the ticket: stop rather than work beside it.
			k.log.Error("lease not renewed in time; stopping the run", "ticket", ref, "err", err)
			cancel(fmt.Errorf("could not renew the lease on %s for %s: %w", ref, k.ttl, err))
			return
		case err != nil:
			// The store is unreachable for now: try again.
			k.log.Warn("renew lease", "ticket", ref, "err", err)
		default:
			renewed = time.Now()
		}
	}
}

// stillAsPicked reads the ticket again once its lease is held and says why
// to skip it when it changed since the pick: on a shared board another
// machine may have worked it (a run bumps its updated time) and released
// its lease just before this beat took it.
func (k *leaseKeeper) stillAsPicked(ctx context.Context, picked board.Ticket) (string, error) {
	now, err := k.store.Ticket(ctx, picked.Ref())
	if err != nil {
		return "", err
	}
	if !now.UpdatedAt.Equal(picked.UpdatedAt) || now.State != picked.State || now.SubState != picked.SubState {
		return "another worker worked it since this beat picked it", nil
	}
	return "", nil
}

// held returns the IDs of the runs whose worker holds their ticket's
// lease.
func (k *leaseKeeper) held(ctx context.Context, runs []board.Run) (map[string]bool, error) {
	held := map[string]bool{}
	if len(runs) == 0 {
		return held, nil
	}
	ls, err := k.leases.Leases(ctx)
	if err != nil {
		return nil, err
	}
	holder := map[string]string{} // ticket ID → worker
	for _, l := range ls {
		holder[l.TicketID] = l.Worker
	}
	for _, r := range runs {
		if w, ok := holder[r.TicketID]; ok && w == r.WorkerID {
			held[r.ID] = true
		}
	}
	return held, nil
}
