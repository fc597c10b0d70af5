package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// AcquireLease leases the ticket to worker; see store.Leases. It writes
// no event, so it takes Dialect.LockLeases instead of the write order:
// the counts of leaseRoom are exact. Its rules follow.
func (db *DB) AcquireLease(ctx context.Context, ref board.Ref, worker string, ttl time.Duration, limit int) (board.Lease, error) {
	if err := store.CheckLease(worker, ttl); err != nil {
		return board.Lease{}, err
	}
	var l board.Lease
	err := db.inTx(ctx, false, func(tx *tx) error {
		if err := db.d.LockLeases.run(ctx, tx.sqlTx); err != nil {
			return err
		}
		t, err := getTicket(ctx, tx, ref)
		if err != nil {
			return err
		}
		expires := tx.now.Add(ttl)
		renewed, err := tx.renewOwnLease(t.ID, worker, expires)
		if err != nil || renewed.TicketID != "" {
			l = renewed
			return err
		}
		if err := db.leaseRoom(tx, ref, t.ProjectID, limit); err != nil {
			return err
		}
		l = board.Lease{Ref: ref, TicketID: t.ID, ProjectID: t.ProjectID, Worker: worker, AcquiredAt: tx.now, ExpiresAt: expires}
		_, err = tx.exec(`INSERT INTO leases (project_id, ticket_id, worker, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
			l.ProjectID, l.TicketID, worker, tx.nowMs(), expires.UnixMilli())
		if db.conflict(err) { // another machine was quicker
			return board.Errorf(board.ECONFLICT, "another worker took %s first", ref)
		}
		return err
	})
	return result(l, wrap(err, "lease %s", ref))
}

// RenewLease moves the worker's lease on the ticket on; see store.Leases.
func (db *DB) RenewLease(ctx context.Context, ref board.Ref, worker string, ttl time.Duration) (board.Lease, error) {
	if err := store.CheckLease(worker, ttl); err != nil {
		return board.Lease{}, err
	}
	l, err := writing(ctx, db, false, func(tx *tx) (board.Lease, error) {
		t, err := getTicket(ctx, tx, ref)
		if err == nil {
			err = tx.execOne(board.Errorf(board.ECONFLICT, "%s holds no lease on %s; its agent must stop", worker, ref),
				`UPDATE leases SET expires_at = ? WHERE ticket_id = ? AND worker = ?`, tx.now.Add(ttl).UnixMilli(), t.ID, worker)
		}
		if err != nil {
			return board.Lease{}, err
		}
		return tx.lease(t.ID)
	})
	return l, wrap(err, "renew the lease on %s", ref)
}

// lease reads the lease on a ticket.
func (t *tx) lease(ticketID string) (board.Lease, error) {
	return store.ScanLease(t.queryRow(`SELECT `+store.LeaseColumns+store.LeaseFrom+` WHERE l.ticket_id = ?`, ticketID))
}

// ReleaseLease ends the worker's lease on the ticket; see store.Leases.
func (db *DB) ReleaseLease(ctx context.Context, ref board.Ref, worker string) error {
	err := db.inTx(ctx, false, func(tx *tx) error {
		t, err := getTicket(ctx, tx, ref)
		if err != nil {
			return err
		}
		return tx.execOne(board.Errorf(board.ECONFLICT, "%s holds no lease on %s", worker, ref),
			`DELETE FROM leases WHERE ticket_id = ? AND worker = ?`, t.ID, worker)
	})
	return wrap(err, "release the lease on %s", ref)
}

// ExpireLeases ends the leases past their time; see store.Leases. Where
// rows are locked, a lease whose row another transaction holds (a renewal
// committing now) is passed over: if that renewal commits, the lease is
// live, and the next beat looks again otherwise.
func (db *DB) ExpireLeases(ctx context.Context) ([]board.Lease, error) {
	ended, err := writing(ctx, db, true, func(tx *tx) ([]board.Lease, error) {
		ended, err := list(ctx, tx, store.ScanLease, `SELECT `+store.LeaseColumns+store.LeaseFrom+
			` WHERE l.expires_at <= ? ORDER BY p.slug`+db.forUpdate("l", true), tx.nowMs())
		if err != nil {
			return nil, err
		}
		for _, l := range ended {
			if err := tx.expireLease(l); err != nil {
				return nil, err
			}
		}
		return ended, nil
	})
	return ended, wrap(err, "expire leases")
}

// expireLease ends lease l and interrupts its worker's runs of the
// ticket, with its lease.expired event.
func (tx *tx) expireLease(l board.Lease) error {
	runs, err := tx.interruptRuns(board.LeaseInterruptedError, `SELECT `+runColumns+` FROM runs
		WHERE status = 'running' AND ticket_id = ? AND worker_id = ? ORDER BY started_at, rowid`, l.TicketID, l.Worker)
	if err != nil {
		return err
	}
	if _, err := tx.exec(`DELETE FROM leases WHERE ticket_id = ?`, l.TicketID); err != nil {
		return err
	}
	return tx.event(board.EventLeaseExpired, l.ProjectID, l.TicketID, board.System, map[string]any{
		"ref": l.Ref.String(), "worker": l.Worker, "expiredAt": l.ExpiresAt, "interrupted": len(runs)})
}

// Leases lists the leases by project slug.
func (db *DB) Leases(ctx context.Context) ([]board.Lease, error) {
	ls, err := list(ctx, db, store.ScanLease, `SELECT `+store.LeaseColumns+store.LeaseFrom+` ORDER BY p.slug, t.number`)
	return result(ls, wrap(err, "list leases"))
}

// RecordBeat stores a worker's beat; see store.Workers.
func (db *DB) RecordBeat(ctx context.Context, b board.WorkerBeat) (board.WorkerBeat, error) {
	if err := board.CheckWorkerBeat(b); err != nil {
		return board.WorkerBeat{}, err
	}
	err := db.inTx(ctx, false, func(tx *tx) error { // no event: no write order
		var row []any
		b, row = store.WorkerRow(b, tx.now)
		if _, err := tx.exec(`DELETE FROM workers WHERE seen_at < ?`, tx.now.Add(-board.WorkerForgotten).UnixMilli()); err != nil {
			return err
		}
		_, err := tx.exec(`INSERT INTO workers (`+store.WorkerColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (host, dir) DO UPDATE SET id = excluded.id, pid = excluded.pid, version = excluded.version,
			kind = excluded.kind, started_at = excluded.started_at, seen_at = excluded.seen_at, stopped_at = excluded.stopped_at`,
			row...)
		return err
	})
	return result(b, wrap(err, "record worker %s's beat", b.ID))
}

// Workers lists the workers seen lately; see store.Workers.
func (db *DB) Workers(ctx context.Context) ([]board.WorkerBeat, error) {
	since := db.Timestamp().Add(-board.WorkerForgotten).UnixMilli()
	ws, err := list(ctx, db, store.ScanWorker, `SELECT `+store.WorkerColumns+` FROM workers WHERE seen_at >= ? ORDER BY seen_at DESC, id`, since)
	return result(ws, wrap(err, "list workers"))
}

// renewOwnLease moves worker's lease on the ticket to expires and returns
// it; a lease of another worker on it, live or expired, is ECONFLICT
// (never two runs of one ticket), and no lease returns a zero Lease.
func (t *tx) renewOwnLease(ticketID, worker string, expires time.Time) (board.Lease, error) {
	old, err := t.lease(ticketID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return board.Lease{}, nil
	case err != nil:
		return board.Lease{}, err
	case old.Worker != worker:
		return board.Lease{}, old.Held(t.now)
	}
	if _, err := t.exec(`UPDATE leases SET expires_at = ? WHERE ticket_id = ?`, expires.UnixMilli(), ticketID); err != nil {
		return board.Lease{}, err
	}
	old.ExpiresAt = expires
	return old, nil
}

// leaseRoom says whether one more lease fits in the ticket's project and
// across the board, at most limit when above 0 (board.CheckLeaseRoom).
func (db *DB) leaseRoom(t *tx, ref board.Ref, projectID string, limit int) error {
	p, err := getProject(t.ctx, t, ref.Project)
	if err != nil {
		return err
	}
	held, err := list(t.ctx, t, store.ScanLease, `SELECT `+store.LeaseColumns+store.LeaseFrom+` WHERE l.project_id = ? ORDER BY t.number`, projectID)
	total := 0
	if err == nil && limit > 0 {
		err = t.queryRow(`SELECT count(*) FROM leases`).Scan(&total)
	}
	if err != nil {
		return err
	}
	return board.CheckLeaseRoom(ref.Project, p.Agent.Agents(), held, total, limit, t.now)
}
