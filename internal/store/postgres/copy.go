package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var _ store.Copier = (*DB)(nil)

// copyBatch is how many rows one COPY carries.
const copyBatch = 5000

// WriteTables writes the rows read gives into this store, which must hold
// no board yet, in one transaction holding the write lock, with COPY.
// The identity sequences then continue after the copied ids.
func (db *DB) WriteTables(ctx context.Context, read func(put func(t store.Table, row []any) error) error) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockWrite, db.lockKey); err != nil {
			return fmt.Errorf("take the write lock: %w", err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM projects) + (SELECT count(*) FROM events)`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return board.Errorf(board.ECONFLICT, "database %s already holds a board; copy into an empty database or schema", db.where)
		}
		var cur store.Table
		var buf [][]any
		flush := func() error {
			if len(buf) == 0 {
				return nil
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{cur.Name}, cur.Names(), pgx.CopyFromRows(buf)); err != nil {
				return fmt.Errorf("write %s: %w", cur.Name, err)
			}
			buf = buf[:0]
			return nil
		}
		err := read(func(t store.Table, row []any) error {
			if t.Name != cur.Name || len(buf) == copyBatch {
				if err := flush(); err != nil {
					return err
				}
				cur = t
			}
			buf = append(buf, append([]any(nil), row...))
			return nil
		})
		if err == nil {
			err = flush()
		}
		if err != nil {
			return err
		}
		// The triggers kept ticket_counts and ticket_queue row by row,
		// leaving a dead row version per ticket copied; tables rebuilt
		// after TRUNCATE (a new file, in this transaction) hold only the
		// live rows.
		_, err = tx.Exec(ctx, `TRUNCATE ticket_counts;
			INSERT INTO ticket_counts (project_id, state, n)
				SELECT project_id, state, count(*) FROM tickets GROUP BY project_id, state;
			TRUNCATE ticket_queue;
			SELECT ticket_queue_refresh(id) FROM projects`)
		if err != nil {
			return fmt.Errorf("count the tickets: %w", err)
		}
		for _, t := range []string{"events", "notify_outbox", "schedule_firings"} {
			_, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence($1, 'id'), max(id)) FROM `+t+` HAVING max(id) IS NOT NULL`, t)
			if err != nil {
				return fmt.Errorf("continue the ids of %s: %w", t, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Statistics for the planner and a visibility map for index-only
	// scans, which autovacuum would give the tables only later.
	if _, err := db.pool.Exec(ctx, `VACUUM (ANALYZE) projects, tickets, ticket_counts, comments, runs, approvals,
		ticket_queue, landings, reviews, schedules, schedule_firings, events, notify_channels, notify_outbox, notify_blockers`); err != nil {
		return fmt.Errorf("vacuum the copied tables: %w", err)
	}
	return nil
}
