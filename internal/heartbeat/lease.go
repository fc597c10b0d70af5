package heartbeat

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Leaser is the store's leases (store.Leases), for a board several
// machines share: a run holds its ticket's lease, one per project, so no
// two machines run an agent in one project, and a machine that dies
// loses its leases, whose runs the next beat anywhere interrupts.
type Leaser interface {
	AcquireLease(ctx context.Context, ref board.Ref, worker string, ttl time.Duration, limit int) (board.Lease, error)
	RenewLease(ctx context.Context, ref board.Ref, worker string, ttl time.Duration) (board.Lease, error)
	ReleaseLease(ctx context.Context, ref board.Ref, worker string) error
	ExpireLeases(ctx context.Context) ([]board.Lease, error)
}

// DefaultLeaseTTL is how long a lease lasts without renewal; a run
// renews it every third of that.
const DefaultLeaseTTL = board.DefaultLeaseTTL

// leaseHint says where a global limit comes from, for a skipped run's
// reason: a lease is refused when another worker holds the project or
// when limit leases are held across the board.
func leaseHint(limit int) string {
	if limit <= 0 {
		return ""
	}
	return fmt.Sprintf(" (heartbeat.maxConcurrentAgents %d holds across the machines sharing the board)", limit)
}

// expireLeases ends the leases of workers that stopped renewing them,
// interrupting their runs, so their tickets are free this beat.
func (h *Heartbeat) expireLeases(ctx context.Context) {
	if h.opts.Leases == nil {
		return
	}
	ls, err := h.opts.Leases.ExpireLeases(ctx)
	if err != nil {
		h.log.Error("expire leases", "err", err)
		return
	}
	for _, l := range ls {
		h.log.Warn("lease expired: its worker stopped renewing it", "ticket", l.Ref, "worker", l.Worker)
	}
}

// holdLease takes the ticket's lease for this beat's worker and renews it
// until release is called, which also releases it. When a renewal finds
// the lease gone (it expired and another beat ended it), or no renewal has
// succeeded for a whole ttl (the store is out of reach, so the lease has
// expired there), the returned context is cancelled: the run must stop,
// as its work may no longer be its own. When another worker holds the
// project, or GlobalLimit leases are held, skip says so and nothing is
// held.
func (h *Heartbeat) holdLease(ctx context.Context, ref board.Ref) (runCtx context.Context, release func(), skip string, err error) {
	ttl := h.opts.LeaseTTL
	if _, err := h.opts.Leases.AcquireLease(ctx, ref, h.opts.WorkerID, ttl, h.opts.GlobalLimit); err != nil {
		if board.ErrorCode(err) == board.ECONFLICT {
			return nil, nil, "no lease: " + err.Error() + leaseHint(h.opts.GlobalLimit), nil
		}
		return nil, nil, "", err
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(ttl / 3)
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
			_, err := h.opts.Leases.RenewLease(runCtx, ref, h.opts.WorkerID, ttl)
			switch {
			case board.ErrorCode(err) == board.ECONFLICT:
				h.log.Error("lease lost; stopping the run", "ticket", ref, "err", err)
				cancel(fmt.Errorf("the lease on %s was lost: %w", ref, err))
				return
			case err != nil && time.Since(renewed) >= ttl:
				// The lease has run out by now, and another machine
				// may take the ticket: stop rather than work beside it.
				h.log.Error("lease not renewed in time; stopping the run", "ticket", ref, "err", err)
				cancel(fmt.Errorf("could not renew the lease on %s for %s: %w", ref, ttl, err))
				return
			case err != nil:
				// The store is unreachable for now: try again.
				h.log.Warn("renew lease", "ticket", ref, "err", err)
			default:
				renewed = time.Now()
			}
		}
	})
	release = func() {
		close(done)
		wg.Wait()
		if err := h.opts.Leases.ReleaseLease(context.WithoutCancel(ctx), ref, h.opts.WorkerID); err != nil {
			h.log.Warn("release lease", "ticket", ref, "err", err)
		}
		cancel(nil)
	}
	return runCtx, release, "", nil
}

// stillAsPicked reads the ticket again once its lease is held and says why
// to skip it when it changed since the pick: on a shared board another
// machine may have worked it (a run bumps its updated time) and released
// its lease just before this beat took it.
func (h *Heartbeat) stillAsPicked(ctx context.Context, picked board.Ticket) (string, error) {
	now, err := h.opts.Store.Ticket(ctx, picked.Ref())
	if err != nil {
		return "", err
	}
	if !now.UpdatedAt.Equal(picked.UpdatedAt) || now.State != picked.State || now.SubState != picked.SubState {
		return "another worker worked it since this beat picked it", nil
	}
	return "", nil
}
