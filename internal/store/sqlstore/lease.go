package sqlstore

import (
	"context"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// AcquireLease leases the ticket to worker; see store.Leases. It writes
// no event, so it takes Dialect.LockLeases instead of the write order:
// the counts of leasesRoom are exact. Its rules are in lease_room.go.
func (db *DB) AcquireLease(ctx context.Context, ref board.Ref, worker string, ttl time.Duration, limit int) (board.Lease, error) {
	if err := store.CheckLease(worker, ttl); err != nil {
		return board.Lease{}, err
	}
	var l board.Lease
	err := db.inTx(ctx, false, func(tx *tx) error {
		if db.d.LockLeases != nil {
			if err := db.d.LockLeases(ctx, tx.sqlTx); err != nil {
				return err
			}
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
	var l board.Lease
	err := db.inTx(ctx, false, func(tx *tx) error {
		t, err := getTicket(ctx, tx, ref)
		if err != nil {
			return err
		}
		err = tx.execOne(board.Errorf(board.ECONFLICT, "%s holds no lease on %s; its agent must stop", worker, ref),
			`UPDATE leases SET expires_at = ? WHERE ticket_id = ? AND worker = ?`, tx.now.Add(ttl).UnixMilli(), t.ID, worker)
		if err != nil {
			return err
		}
		l, err = store.ScanLease(tx.queryRow(`SELECT `+store.LeaseColumns+store.LeaseFrom+` WHERE l.ticket_id = ?`, t.ID))
		return err
	})
	return result(l, wrap(err, "renew the lease on %s", ref))
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
	var ended []board.Lease
	err := db.write(ctx, func(tx *tx) error {
		var err error
		ended, err = list(ctx, tx, store.ScanLease, `SELECT `+store.LeaseColumns+store.LeaseFrom+
			` WHERE l.expires_at <= ? ORDER BY p.slug`+db.forUpdate("l", true), tx.nowMs())
		if err != nil {
			return err
		}
		for _, l := range ended {
			runs, err := tx.interruptRuns(board.LeaseInterruptedError, `SELECT `+runColumns+` FROM runs
				WHERE status = 'running' AND ticket_id = ? AND worker_id = ? ORDER BY started_at, rowid`, l.TicketID, l.Worker)
			if err != nil {
				return err
			}
			if _, err := tx.exec(`DELETE FROM leases WHERE ticket_id = ?`, l.TicketID); err != nil {
				return err
			}
			err = tx.event(board.EventLeaseExpired, l.ProjectID, l.TicketID, board.System, map[string]any{
				"ref": l.Ref.String(), "worker": l.Worker, "expiredAt": l.ExpiresAt, "interrupted": len(runs)})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return result(ended, wrap(err, "expire leases"))
}

// Leases lists the leases by project slug.
func (db *DB) Leases(ctx context.Context) ([]board.Lease, error) {
	ls, err := list(ctx, db, store.ScanLease, `SELECT `+store.LeaseColumns+store.LeaseFrom+` ORDER BY p.slug, t.number`)
	return result(ls, wrap(err, "list leases"))
}
