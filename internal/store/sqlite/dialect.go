package sqlite

import (
	"context"
	"database/sql"

	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// dialect is SQLite's sqlstore.Dialect: queries run as written, the
// process's writers queue on db.writeLock before BEGIN IMMEDIATE, each
// event is fanned out to the notification outbox by notifyOutbox, and the
// pick runs a statement prepared once.
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
		PickQuery:     pickQuery,
		OverviewQuery: overviewQuery,
		Prepare:       db.prepared,
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

// pickQuery reads, for each project, its row of ticket_queue (the ticket
// the pick policy chooses there, kept by the triggers of migrations 0005
// and 0007) and that ticket by rowid. See docs/store.md.
const pickQuery = `SELECT ` + sqlstore.TicketColumns + `, q.pick_class
	FROM projects p
	JOIN ticket_queue q ON q.project_id = p.id AND ` + queueAllowed + `
	JOIN tickets t ON t.rowid = q.ticket`

// queueAllowed keeps a ticket_queue row q of project p unless it is a
// BACKLOG ticket (class 5, board.ClassBacklog) and p's agents do not take
// BACKLOG tickets: ticket_queue holds them for every project.
const queueAllowed = `(q.pick_class < 5 OR p.take_backlog = 1)`

// overviewQuery reads each project with its ticket counts, as the "STATE n"
// pairs of countsQuery, and its ticket_queue row, all kept by triggers.
// The three settings shown are read from the settings JSON without
// decoding it all.
const overviewQuery = `SELECT p.slug, p.name, p.active, COALESCE(p.settings ->> '$.model', ''),
	COALESCE(p.settings ->> '$.permissionMode', ''), COALESCE(p.settings ->> '$.sandbox', ''),
	(SELECT group_concat(c.state || ' ' || c.n) FROM ticket_counts c WHERE c.project_id = p.id AND c.n > 0),
	q.number, q.title, q.state, q.sub_state, q.priority, q.pick_class
	FROM projects p
	LEFT JOIN ticket_queue q ON q.project_id = p.id AND p.active = 1 AND ` + queueAllowed + `
	WHERE p.active = 1 OR ?
	ORDER BY p.slug`

// appendOutbox adds the notifications of the event res inserted.
func appendOutbox(ctx context.Context, tx *sql.Tx, res sql.Result) error {
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, notifyOutbox, id)
	return err
}
