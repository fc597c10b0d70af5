package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// tx is one write transaction: the SQL transaction, the time of the change
// (one timestamp for everything it writes) and the store.
type tx struct {
	sqlTx *sql.Tx
	ctx   context.Context
	db    *DB
	now   time.Time
	// appended reports that the transaction appended events.
	appended bool
}

// write runs fn in one transaction that holds the store's write order
// (Dialect.LockWrites), and commits it when fn returns nil. Every write
// that appends events uses it: event ids then commit in id order, so a
// reader following Events(afterID) never sees a later id before an
// earlier one. The timestamp is read after the lock, so times follow the
// same order.
func (db *DB) write(ctx context.Context, fn func(tx *tx) error) error {
	return db.inTx(ctx, true, fn)
}

// writing runs fn in one transaction, in the store's write order when
// locked (DB.inTx), and returns what fn returns: T's zero value with an
// error.
func writing[T any](ctx context.Context, db *DB, locked bool, fn func(tx *tx) (T, error)) (T, error) {
	var out T
	err := db.inTx(ctx, locked, func(tx *tx) error {
		var err error
		out, err = fn(tx)
		return err
	})
	return result(out, err)
}

// onTicket runs fn on the ticket ref, read in one write transaction
// (write), and returns what fn returns; a runtime failure is wrapped as
// "doing ref" (wrap).
func onTicket[T any](ctx context.Context, db *DB, ref board.Ref, doing string, fn func(tx *tx, t board.Ticket) (T, error)) (T, error) {
	out, err := writing(ctx, db, true, func(tx *tx) (T, error) {
		t, err := getTicket(ctx, tx, ref)
		if err != nil {
			var zero T
			return zero, err
		}
		return fn(tx, t)
	})
	return out, wrap(err, "%s %s", doing, ref)
}

// ticketEvent appends an event of ticket t (tx.event) whose data names
// it as "ref", beside data's own fields.
func (t *tx) ticketEvent(typ board.EventType, tk board.Ticket, actor board.Actor, data map[string]any) error {
	data["ref"] = tk.Ref().String()
	return t.event(typ, tk.ProjectID, tk.ID, actor, data)
}

// inTx runs fn in one transaction, in the store's write order when
// locked. Writes that append no events (leases, beats, transcripts,
// deliveries) need not wait for it where writers are not serial anyway.
func (db *DB) inTx(ctx context.Context, locked bool, fn func(tx *tx) error) error {
	if l := db.d.WriteLock; l != nil {
		select {
		case l <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-l }()
	}
	sqlTx, err := db.pool.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer sqlTx.Rollback()
	if locked {
		if err := db.d.LockWrites.run(ctx, sqlTx); err != nil {
			return fmt.Errorf("take the write lock: %w", err)
		}
	}
	t := &tx{sqlTx: sqlTx, ctx: ctx, db: db, now: db.Timestamp()}
	if err := fn(t); err != nil {
		return err
	}
	if t.appended {
		if err := db.d.Committing.run(ctx, sqlTx); err != nil {
			return fmt.Errorf("notify: %w", err)
		}
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// nowMs returns the transaction's time in unix milliseconds.
func (t *tx) nowMs() int64 { return t.now.UnixMilli() }

// stmt returns query's prepared statement (DB.prepared) bound to the
// transaction, or nil, with query in the engine's form.
func (t *tx) stmt(ctx context.Context, query string) (*sql.Stmt, string) {
	q := t.db.rebind(query)
	if st := t.db.prepared(ctx, q, true); st != nil {
		return t.sqlTx.StmtContext(ctx, st), q
	}
	return nil, q
}

// exec runs a statement in the transaction.
func (t *tx) exec(query string, args ...any) (sql.Result, error) {
	st, q := t.stmt(t.ctx, query)
	if st == nil {
		return t.sqlTx.ExecContext(t.ctx, q, args...)
	}
	return st.ExecContext(t.ctx, args...)
}

// queryRow runs a one-row query in the transaction.
func (t *tx) queryRow(query string, args ...any) *sql.Row {
	return t.queryRowContext(t.ctx, query, args...)
}

// queryContext runs a query in the transaction.
func (t *tx) queryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, q := t.stmt(ctx, query)
	if st == nil {
		return t.sqlTx.QueryContext(ctx, q, args...)
	}
	return st.QueryContext(ctx, args...)
}

// queryRowContext runs a one-row query in the transaction.
func (t *tx) queryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, q := t.stmt(ctx, query)
	if st == nil {
		return t.sqlTx.QueryRowContext(ctx, q, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// event appends one event in the transaction; Dialect.EventOutbox adds
// its notifications to the outbox where a trigger does not. data is
// marshalled to JSON; nil means no data.
func (t *tx) event(typ board.EventType, projectID, ticketID string, actor board.Actor, data any) error {
	var raw any // NULL
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			return fmt.Errorf("event %s: %w", typ, err)
		}
		raw = string(b)
	}
	res, err := t.exec(`INSERT INTO events (type, project_id, ticket_id, actor, data, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
		string(typ), projectID, ticketID, string(actor), raw, t.nowMs())
	if err != nil {
		return fmt.Errorf("event %s: %w", typ, err)
	}
	t.appended = true
	if q := t.db.d.EventOutbox; q != "" {
		id, err := res.LastInsertId()
		if err == nil {
			_, err = t.exec(q, id)
		}
		if err != nil {
			return fmt.Errorf("event %s: notify: %w", typ, err)
		}
	}
	return nil
}

// WriteSQL runs fn in one transaction in the store's write order, for an
// engine's own writes (a copy into a new board).
func (db *DB) WriteSQL(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.write(ctx, func(t *tx) error { return fn(t.sqlTx) })
}

// DefaultEvents is how many events Events returns for a limit of 0.
const DefaultEvents = 100

// Events returns up to limit events with an ID greater than afterID, oldest
// first; a limit of 0 or less means DefaultEvents.
func (db *DB) Events(ctx context.Context, afterID int64, limit int) ([]board.Event, error) {
	if limit <= 0 {
		limit = DefaultEvents
	}
	es, err := list(ctx, db, scanEvent, `SELECT `+eventColumns+` FROM events WHERE id > ? ORDER BY id LIMIT ?`, afterID, limit)
	return result(es, wrap(err, "list events"))
}

// eventColumns are the columns of events scanEvent reads.
const eventColumns = `id, type, project_id, ticket_id, actor, data, created_at`

func scanEvent(s scanner) (board.Event, error) {
	var e board.Event
	var data sql.NullString
	err := s.Scan(&e.ID, &e.Type, &e.ProjectID, &e.TicketID, &e.Actor, &data, ms{&e.CreatedAt})
	if data.Valid {
		e.Data = json.RawMessage(data.String)
	}
	return e, err
}
