package sqlite

import (
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// dialect is SQLite's sqlstore.Dialect: queries run as written, the
// process's writers queue on db.writeLock before BEGIN IMMEDIATE, each
// event is fanned out to the notification outbox by notifyOutbox, every
// query runs a statement prepared once, and attachments' bytes are files
// of the data directory.
func (db *DB) dialect() sqlstore.Dialect {
	return sqlstore.Dialect{
		Prepare:     true,
		WriteLock:   db.writeLock,
		EventOutbox: notifyOutbox,
		JoinInOrder: "CROSS JOIN",
		DueWhere:    `s.paused = 0 AND s.next_fire IS NOT NULL AND s.next_fire <= ? AND p.active = 1`,
		CountsQuery: countsQuery,
		SchemaQuery: `SELECT m.name, c.name FROM sqlite_schema m, pragma_table_xinfo(m.name) c
			WHERE m.type = 'table' ORDER BY m.name, c.cid`,
		PickQuery:     pickQuery,
		OverviewQuery: overviewQuery,
		Blobs:         store.BlobDir{Dir: store.AttachmentsDir(db.path)},
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
	COALESCE((SELECT group_concat(c.state || ' ' || c.n) FROM ticket_counts c WHERE c.project_id = p.id AND c.n > 0), ''),
	q.project_id IS NOT NULL, COALESCE(q.number, 0), COALESCE(q.title, ''), COALESCE(q.state, ''),
	COALESCE(q.sub_state, ''), COALESCE(q.priority, 0), COALESCE(q.pick_class, 0)
	FROM projects p
	LEFT JOIN ticket_queue q ON q.project_id = p.id AND p.active = 1 AND ` + queueAllowed + `
	WHERE p.active = 1 OR ?
	ORDER BY p.slug`

// notifyOutbox fans the event with the given id out to the notification
// outbox: one row per channel whose rules want it (docs/notifications.md).
// tx.event runs it in the transaction that appends the event, so a
// notification exists exactly when its event does. The rules are data
// (notify_rules): an event type no rule names inserts nothing.
const notifyOutbox = `INSERT INTO notify_outbox (channel_id, event_id, kind, payload, next_at, created_at)
SELECT c.id, e.id, r.notify_kind,
    json_object(
        'project', (SELECT slug FROM projects WHERE id = e.project_id),
        'ticket', (SELECT p.slug || '#' || t.number FROM tickets t JOIN projects p ON p.id = t.project_id
                   WHERE t.id = e.ticket_id),
        'title', (SELECT title FROM tickets WHERE id = e.ticket_id),
        'text', COALESCE(
            (SELECT content FROM comments WHERE id = json_extract(e.data, '$.commentId')),
            json_extract(e.data, '$.error'),
            json_extract(e.data, '$.cause'),
            (SELECT 'Command: ' || command FROM approvals WHERE id = json_extract(e.data, '$.approvalId')),
            ''),
        'status', json_extract(e.data, '$.status'),
        'costUsd', json_extract(e.data, '$.costUsd'),
        'actor', e.actor),
    e.created_at, e.created_at
FROM events e JOIN notify_rules r ON r.event_type = e.type JOIN notify_channels c
WHERE e.id = ?
  AND (r.actor = '' OR r.actor = e.actor)
  AND (r.data_path = '' OR json_extract(e.data, r.data_path) = r.data_value)
  AND (c.project_id = '' OR c.project_id = e.project_id)
  AND (c.kinds = '[]' OR EXISTS (SELECT 1 FROM json_each(c.kinds) WHERE value = r.notify_kind))`
