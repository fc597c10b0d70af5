package postgres

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// dialect is Postgres's sqlstore.Dialect: $n placeholders and seq for
// SQLite's rowid, the write order and the lease order as transaction
// advisory locks, row locks, and a notification to EventsChanged's
// listeners when events were appended. The notification outbox is kept
// by a trigger on events.
func (db *DB) dialect() sqlstore.Dialect {
	return sqlstore.Dialect{
		Rebind: rebind,
		LockWrites: func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockWrite, db.lockKey)
			return err
		},
		LockLeases: func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockLease, db.lockKey)
			return err
		},
		Committing: func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `SELECT pg_notify($1, '')`, db.eventsChannel())
			return err
		},
		Conflict: func(err error) bool {
			var pe *pgconn.PgError
			return errors.As(err, &pe) && pe.Code == "23505" // unique_violation
		},
		RowLocks:    true,
		JoinInOrder: "JOIN",
		DueWhere:    `NOT s.paused AND s.next_fire IS NOT NULL AND s.next_fire <= ? AND p.active`,
		TextBytes:   `octet_length(line)`,
		CountsQuery: countsQuery,
		SchemaQuery: `SELECT table_name, column_name FROM information_schema.columns
			WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
	}
}

// countsQuery reads ticket_counts, kept by a trigger, as a row per
// project: its states as "STATE n" pairs joined by commas.
const countsQuery = `SELECT p.slug, string_agg(c.state || ' ' || c.n, ',')
	FROM projects p JOIN ticket_counts c ON c.project_id = p.id
	WHERE c.n > 0
	GROUP BY p.id`

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
