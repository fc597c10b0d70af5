package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bonsai-run/bonsai/internal/board"
)

// tx is one write transaction: the SQL transaction, the time of the change
// (one timestamp for everything it writes) and the store.
type tx struct {
	pgx.Tx
	ctx context.Context
	db  *DB
	now time.Time
	// appended reports that the transaction appended events: it notifies
	// the listeners of EventsChanged when it commits.
	appended bool
}

// write runs fn in one transaction that holds the store's write lock, and
// commits it when fn returns nil.
//
// The lock (a transaction advisory lock, released at commit) orders the
// writers that append events, in every process and on every machine, as
// SQLite's BEGIN IMMEDIATE does: an event id is allocated only by the
// transaction holding the lock, so events commit in id order and a reader
// following Events(afterID) never sees a later id before an earlier one.
// Without it, a transaction that took id 7 could commit after one that
// took id 8, and a reader that had seen 8 would miss 7 for ever. The
// timestamp is read after the lock, so times follow the same order.
func (db *DB) write(ctx context.Context, fn func(tx *tx) error) error {
	return db.inTx(ctx, true, fn)
}

// inTx runs fn in one transaction, holding the write lock when locked.
func (db *DB) inTx(ctx context.Context, locked bool, fn func(tx *tx) error) error {
	pgTx, err := db.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer pgTx.Rollback(context.Background())
	if locked {
		if _, err := pgTx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockWrite, db.lockKey); err != nil {
			return fmt.Errorf("take the write lock: %w", err)
		}
	}
	t := &tx{Tx: pgTx, ctx: ctx, db: db, now: db.timestamp()}
	if err := fn(t); err != nil {
		return err
	}
	if t.appended {
		if _, err := pgTx.Exec(ctx, `SELECT pg_notify($1, '')`, db.eventsChannel()); err != nil {
			return fmt.Errorf("notify: %w", err)
		}
	}
	if err := pgTx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// nowMs returns the transaction's time in unix milliseconds.
func (t *tx) nowMs() int64 { return t.now.UnixMilli() }

// exec runs a statement in the transaction.
func (t *tx) exec(query string, args ...any) (pgconn.CommandTag, error) {
	return t.Exec(t.ctx, query, args...)
}

// queryRow runs a one-row query in the transaction.
func (t *tx) queryRow(query string, args ...any) pgx.Row {
	return t.QueryRow(t.ctx, query, args...)
}

// event appends one event in the transaction. data is marshalled to JSON;
// nil means no data.
func (t *tx) event(typ board.EventType, projectID, ticketID string, actor board.Actor, data any) error {
	var raw *string
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			return fmt.Errorf("event %s: %w", typ, err)
		}
		s := string(b)
		raw = &s
	}
	_, err := t.exec(`INSERT INTO events (type, project_id, ticket_id, actor, data, created_at)
		VALUES ($1, $2, $3, $4, $5::json, $6)`,
		string(typ), projectID, ticketID, string(actor), raw, t.nowMs())
	if err != nil {
		return fmt.Errorf("event %s: %w", typ, err)
	}
	t.appended = true
	return nil
}

// wrap adds context to a runtime failure. Classified errors (not found,
// invalid, conflict, refused) pass through unchanged: their messages are
// written for the person reading them and already say what is wrong.
func wrap(err error, format string, args ...any) error {
	if board.ErrorCode(err) != board.EINTERNAL {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// noRows reports whether err is pgx's "no rows in result set".
func noRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
