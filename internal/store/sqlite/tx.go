package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// tx is one write transaction: the SQL transaction, the time of the change
// (one timestamp for everything it writes) and the store's ID source.
type tx struct {
	*sql.Tx
	ctx context.Context
	db  *DB
	now time.Time
}

// write runs fn in one transaction and commits it when fn returns nil. The
// DSN makes the transaction BEGIN IMMEDIATE, so it holds the write lock from
// the start and waits (busy_timeout) rather than deadlocks on a concurrent
// writer.
//
// Writers of one process queue on db.writeLock first: SQLite's busy handler
// polls with sleeps of up to 100 ms, so a goroutine that waited there for
// another goroutine's commit would wake late; the channel hands over at
// once. Writers in other processes still meet at SQLite's lock.
func (db *DB) write(ctx context.Context, fn func(tx *tx) error) error {
	select {
	case db.writeLock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-db.writeLock }()
	sqlTx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	t := &tx{Tx: sqlTx, ctx: ctx, db: db, now: db.timestamp()}
	if err := fn(t); err != nil {
		sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// nowMs returns the transaction's time in unix milliseconds.
func (t *tx) nowMs() int64 { return t.now.UnixMilli() }

// exec runs a statement in the transaction.
func (t *tx) exec(query string, args ...any) (sql.Result, error) {
	return t.ExecContext(t.ctx, query, args...)
}

// queryRow runs a one-row query in the transaction.
func (t *tx) queryRow(query string, args ...any) *sql.Row {
	return t.QueryRowContext(t.ctx, query, args...)
}

// event appends one event in the transaction, and its notifications to
// the outbox (notifyOutbox): every event of the board is appended here.
// data is marshalled to JSON; nil means no data.
func (t *tx) event(typ board.EventType, projectID, ticketID string, actor board.Actor, data any) error {
	var raw []byte
	if data != nil {
		var err error
		if raw, err = json.Marshal(data); err != nil {
			return fmt.Errorf("event %s: %w", typ, err)
		}
	}
	res, err := t.exec(`INSERT INTO events (type, project_id, ticket_id, actor, data, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
		string(typ), projectID, ticketID, string(actor), nullString(raw), t.nowMs())
	if err != nil {
		return fmt.Errorf("event %s: %w", typ, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("event %s: %w", typ, err)
	}
	if _, err := t.exec(notifyOutbox, id); err != nil {
		return fmt.Errorf("event %s: notify: %w", typ, err)
	}
	return nil
}

// nullString stores empty JSON as NULL.
func nullString(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
