package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// lockLease is the first key of the advisory lock that orders lease
// acquisitions, so the count of leases under the global limit is exact.
// Renewals and releases take only their row's lock.
const lockLease int32 = 0x626f6e6c

// AcquireLease leases the ticket to worker; see store.Leases. It writes
// no event, so it takes the lease lock instead of the write lock.
func (db *DB) AcquireLease(ctx context.Context, ref board.Ref, worker string, ttl time.Duration, limit int) (board.Lease, error) {
	if err := store.CheckLease(worker, ttl); err != nil {
		return board.Lease{}, err
	}
	var l board.Lease
	err := db.inTx(ctx, false, func(tx *tx) error {
		if _, err := tx.exec(`SELECT pg_advisory_xact_lock($1, $2)`, lockLease, db.lockKey); err != nil {
			return err
		}
		t, err := getTicket(ctx, tx, ref)
		if err != nil {
			return err
		}
		expires := tx.now.Add(ttl)
		old, err := store.ScanLease(tx.queryRow(`SELECT `+store.LeaseColumns+store.LeaseFrom+` WHERE l.project_id = $1 FOR UPDATE OF l`, t.ProjectID))
		switch {
		case err == nil && old.TicketID == t.ID && old.Worker == worker:
			if _, err := tx.exec(`UPDATE leases SET expires_at = $1 WHERE project_id = $2`, expires.UnixMilli(), t.ProjectID); err != nil {
				return err
			}
			l, l.ExpiresAt = old, expires
			return nil
		case err == nil && !old.ExpiresAt.After(tx.now):
			return board.Errorf(board.ECONFLICT, "%s's lease on %s expired at %s; the next beat ends it and its run",
				old.Worker, old.Ref, old.ExpiresAt.Format(time.RFC3339))
		case err == nil:
			return board.Errorf(board.ECONFLICT, "project %s already has an agent: %s holds %s until %s",
				ref.Project, old.Worker, old.Ref, old.ExpiresAt.Format(time.RFC3339))
		case !noRows(err):
			return err
		}
		if limit > 0 {
			var n int
			if err := tx.queryRow(`SELECT count(*) FROM leases`).Scan(&n); err != nil {
				return err
			}
			if n >= limit {
				return board.Errorf(board.ECONFLICT, "%d agents already run, the limit", n)
			}
		}
		l = board.Lease{Ref: ref, TicketID: t.ID, ProjectID: t.ProjectID, Worker: worker, AcquiredAt: tx.now, ExpiresAt: expires}
		_, err = tx.exec(`INSERT INTO leases (project_id, ticket_id, worker, acquired_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
			l.ProjectID, l.TicketID, worker, tx.nowMs(), expires.UnixMilli())
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" { // unique_violation: another machine was quicker
			return board.Errorf(board.ECONFLICT, "project %s already has an agent", ref.Project)
		}
		return err
	})
	if err != nil {
		return board.Lease{}, wrap(err, "lease %s", ref)
	}
	return l, nil
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
		res, err := tx.exec(`UPDATE leases SET expires_at = $1 WHERE ticket_id = $2 AND worker = $3`,
			tx.now.Add(ttl).UnixMilli(), t.ID, worker)
		if err != nil {
			return err
		}
		if res.RowsAffected() == 0 {
			return board.Errorf(board.ECONFLICT, "%s holds no lease on %s; its agent must stop", worker, ref)
		}
		l, err = store.ScanLease(tx.queryRow(`SELECT `+store.LeaseColumns+store.LeaseFrom+` WHERE l.ticket_id = $1`, t.ID))
		return err
	})
	if err != nil {
		return board.Lease{}, wrap(err, "renew the lease on %s", ref)
	}
	return l, nil
}

// ReleaseLease ends the worker's lease on the ticket; see store.Leases.
func (db *DB) ReleaseLease(ctx context.Context, ref board.Ref, worker string) error {
	err := db.inTx(ctx, false, func(tx *tx) error {
		t, err := getTicket(ctx, tx, ref)
		if err != nil {
			return err
		}
		res, err := tx.exec(`DELETE FROM leases WHERE ticket_id = $1 AND worker = $2`, t.ID, worker)
		if err != nil {
			return err
		}
		if res.RowsAffected() == 0 {
			return board.Errorf(board.ECONFLICT, "%s holds no lease on %s", worker, ref)
		}
		return nil
	})
	return wrap(err, "release the lease on %s", ref)
}

// ExpireLeases ends the leases past their time; see store.Leases. A lease
// whose row another transaction holds (a renewal committing now) is
// skipped (FOR UPDATE SKIP LOCKED): if that renewal commits, the lease is
// live, and the next beat looks again otherwise.
func (db *DB) ExpireLeases(ctx context.Context) ([]board.Lease, error) {
	var ended []board.Lease
	err := db.write(ctx, func(tx *tx) error {
		ended = nil
		rows, err := tx.Query(ctx, `SELECT `+store.LeaseColumns+store.LeaseFrom+` WHERE l.expires_at <= $1
			ORDER BY p.slug FOR UPDATE OF l SKIP LOCKED`, tx.nowMs())
		if err != nil {
			return err
		}
		for rows.Next() {
			l, err := store.ScanLease(rows)
			if err != nil {
				rows.Close()
				return err
			}
			ended = append(ended, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, l := range ended {
			runs, err := listRunsIn(tx, `SELECT `+runColumns+` FROM runs
				WHERE status = 'running' AND ticket_id = $1 AND worker_id = $2 ORDER BY started_at, seq`, l.TicketID, l.Worker)
			if err != nil {
				return err
			}
			for _, r := range runs {
				_, err := tx.exec(`UPDATE runs SET status = 'interrupted', finished_at = $1, error = $2 WHERE id = $3`,
					tx.nowMs(), board.LeaseInterruptedError, r.ID)
				if err != nil {
					return err
				}
				now := tx.now
				r.Status, r.FinishedAt, r.Error = board.RunInterrupted, &now, board.LeaseInterruptedError
				if err := tx.runFinished(r); err != nil {
					return err
				}
			}
			if _, err := tx.exec(`DELETE FROM leases WHERE project_id = $1`, l.ProjectID); err != nil {
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
	if err != nil {
		return nil, fmt.Errorf("expire leases: %w", err)
	}
	return ended, nil
}

// listRunsIn reads runs in the transaction.
func listRunsIn(tx *tx, query string, args ...any) ([]board.Run, error) {
	rows, err := tx.Query(tx.ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var rs []board.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, rows.Err()
}

// Leases lists the leases by project slug.
func (db *DB) Leases(ctx context.Context) ([]board.Lease, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+store.LeaseColumns+store.LeaseFrom+` ORDER BY p.slug`)
	if err != nil {
		return nil, fmt.Errorf("list leases: %w", err)
	}
	defer rows.Close()
	ls := []board.Lease{}
	for rows.Next() {
		l, err := store.ScanLease(rows)
		if err != nil {
			return nil, fmt.Errorf("list leases: %w", err)
		}
		ls = append(ls, l)
	}
	return ls, rows.Err()
}
