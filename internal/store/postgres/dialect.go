package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// dialect is Postgres's sqlstore.Dialect: $n placeholders and seq for
// SQLite's rowid, the write order and the lease order as transaction
// advisory locks, row locks, and a notification to EventsChanged's
// listeners when events were appended. The notification outbox is kept
// by a trigger on events. The pick and overview run through pgx natively.
func (db *DB) dialect() sqlstore.Dialect {
	return sqlstore.Dialect{
		Rebind:     rebind,
		LockWrites: db.advisoryLock(lockWrite),
		LockLeases: db.advisoryLock(lockLease),
		Committing: sqlstore.Statement{Query: `SELECT pg_notify($1, '')`, Args: []any{db.eventsChannel()}},
		Conflict: func(err error) bool {
			var pe *pgconn.PgError
			return errors.As(err, &pe) && pe.Code == "23505" // unique_violation
		},
		RowLocks:    true,
		JoinInOrder: "JOIN",
		DueWhere:    `NOT s.paused AND s.next_fire IS NOT NULL AND s.next_fire <= ? AND p.active`,
		CountsQuery: countsQuery,
		SchemaQuery: `SELECT table_name, column_name FROM information_schema.columns
			WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
		PickQuery:     pickQuery,
		OverviewQuery: overviewQuery,
		HotQuery: func(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
			rows, err := db.pool.Query(ctx, query, args...)
			return pgxRows{rows}, err
		},
	}
}

// pgxRows are pgx's rows as sqlstore.Rows.
type pgxRows struct{ pgx.Rows }

// Close closes the rows.
func (r pgxRows) Close() error {
	r.Rows.Close()
	return nil
}

// advisoryLock is the statement that takes the store's transaction
// advisory lock whose first key is key.
func (db *DB) advisoryLock(key int32) sqlstore.Statement {
	return sqlstore.Statement{Query: `SELECT pg_advisory_xact_lock($1, $2)`, Args: []any{key, db.lockKey}}
}

// countsQuery reads ticket_counts, kept by a trigger, as a row per
// project: its states as "STATE n" pairs joined by commas.
const countsQuery = `SELECT p.slug, string_agg(c.state || ' ' || c.n, ',')
	FROM projects p JOIN ticket_counts c ON c.project_id = p.id
	WHERE c.n > 0
	GROUP BY p.id`

// pickQuery reads, for each project, its row of ticket_queue: the ticket
// the pick policy chooses there, kept whole by the trigger of migrations
// 0003 and queue_tickets, so the pick reads no ticket. See
// docs/postgres.md.
const pickQuery = `SELECT q.ticket_id, q.project_id, p.slug, q.number, q.title, q.description, q.criteria, q.plan,
	q.state, q.sub_state, q.priority, q.branch, q.created_at, q.updated_at, q.queue_class
	FROM projects p
	JOIN ticket_queue q ON q.project_id = p.id AND ` + queueAllowed

// queueAllowed keeps a ticket_queue row q of project p unless it is a
// BACKLOG ticket (class 5, board.ClassBacklog) and p's agents do not take
// BACKLOG tickets: ticket_queue holds them for every project.
const queueAllowed = `(q.queue_class < 5 OR p.take_backlog)`

// overviewQuery reads each project with its ticket counts, ticket_counts
// grouped once by project into "STATE n" pairs (a subquery per project
// cost 1.6 ms on 100 projects, the grouping 0.25), and its ticket_queue
// row: a row per project, whatever the number of tickets, reading no
// ticket. The three settings shown are read from the settings JSON
// without decoding it all.
const overviewQuery = `SELECT p.slug, p.name, p.active, COALESCE(p.settings::json ->> 'model', ''),
	COALESCE(p.settings::json ->> 'permissionMode', ''), COALESCE(p.settings::json ->> 'sandbox', ''),
	COALESCE(c.pairs, ''), q.project_id IS NOT NULL, COALESCE(q.number, 0), COALESCE(q.title, ''), COALESCE(q.state, ''),
	COALESCE(q.sub_state, ''), COALESCE(q.priority, 0), COALESCE(q.queue_class, 0)
	FROM projects p
	LEFT JOIN (SELECT project_id, string_agg(state || ' ' || n, ',') AS pairs
		FROM ticket_counts WHERE n > 0 GROUP BY project_id) c ON c.project_id = p.id
	LEFT JOIN ticket_queue q ON q.project_id = p.id AND p.active AND ` + queueAllowed + `
	WHERE p.active OR ?
	ORDER BY p.slug`

// rebind turns a query in SQLite's form into Postgres's: each ? outside a
// quoted string becomes $1, $2, …, and the word rowid becomes seq, the
// column that orders rows as they were written.
func rebind(q string) string {
	var b strings.Builder
	n := 0
	quote := byte(0)
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		case c == 'r' && strings.HasPrefix(q[i:], "rowid") && !identByte(q, i-1) && !identByte(q, i+5):
			b.WriteString("seq")
			i += len("rowid") - 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// identByte reports whether q[i] exists and may be part of an identifier.
func identByte(q string, i int) bool {
	if i < 0 || i >= len(q) {
		return false
	}
	c := q[i]
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// lockLease is the first key of the advisory lock that orders lease
// acquisitions, so the count of leases under the global limit is exact.
// Renewals and releases take only their row's lock.
const lockLease int32 = 0x626f6e6c

// eventsChannel is the LISTEN/NOTIFY channel of the store's schema: every
// transaction that appends events notifies it, and Postgres delivers the
// notification when the transaction commits.
func (db *DB) eventsChannel() string {
	return fmt.Sprintf("bonsai_events_%08x", uint32(db.lockKey))
}

// EventsChanged returns a channel that receives when events were appended,
// by any process on any machine, until ctx is done, when it is closed. A
// reader following Events wakes on it instead of waiting for its next
// poll; it should still poll now and then, since a notification lost with
// a connection is not sent again. Several notifications may come as one.
func (db *DB) EventsChanged(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	go func() {
		defer close(ch)
		for ctx.Err() == nil {
			if err := db.listen(ctx, ch); err != nil && ctx.Err() == nil {
				// The connection failed: listen again after a pause;
				// the reader's poll covers the gap.
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}
	}()
	return ch
}

// listen holds one connection listening on the events channel and sends
// to ch, without blocking, for each notification, until an error.
func (db *DB) listen(ctx context.Context, ch chan<- struct{}) error {
	pooled, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A connection that listened goes back to no pool: its LISTEN must
	// not outlive this reader.
	conn := pooled.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+db.eventsChannel()); err != nil {
		return err
	}
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		select {
		case ch <- struct{}{}:
		default: // one is pending already
		}
	}
}
