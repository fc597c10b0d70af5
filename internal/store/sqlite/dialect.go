package sqlite

import (
	"context"
	"database/sql"

	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// dialect is SQLite's sqlstore.Dialect: queries run as written, the
// process's writers queue on db.writeLock before BEGIN IMMEDIATE, and each
// event is fanned out to the notification outbox by notifyOutbox.
func (db *DB) dialect() sqlstore.Dialect {
	return sqlstore.Dialect{
		WriteLock:     db.writeLock,
		EventAppended: appendOutbox,
		JoinInOrder:   "CROSS JOIN",
		DueWhere:      `s.paused = 0 AND s.next_fire IS NOT NULL AND s.next_fire <= ? AND p.active = 1`,
		TextBytes:     `length(CAST(line AS BLOB))`,
		CountsQuery:   countsQuery,
		SchemaQuery: `SELECT m.name, c.name FROM sqlite_schema m, pragma_table_xinfo(m.name) c
			WHERE m.type = 'table' ORDER BY m.name, c.cid`,
	}
}

// countsQuery reads the ticket_counts table, which triggers on tickets keep
// exact (migration 0002), as one row per project: "STATE n" pairs joined by
// commas. Reading five states per row instead of a row per project and state
// halves the method's cost, most of which is the driver's work per row. The
// projects are scanned in rowid order, so the grouping needs no sort.
const countsQuery = `
	SELECT p.slug, group_concat(c.state || ' ' || c.n)
	FROM projects p CROSS JOIN ticket_counts c ON c.project_id = p.id
	WHERE c.n > 0
	GROUP BY p.rowid`

// appendOutbox adds the notifications of the event res inserted.
func appendOutbox(ctx context.Context, tx *sql.Tx, res sql.Result) error {
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, notifyOutbox, id)
	return err
}
