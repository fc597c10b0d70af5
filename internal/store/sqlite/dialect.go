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
	}
}

// appendOutbox adds the notifications of the event res inserted.
func appendOutbox(ctx context.Context, tx *sql.Tx, res sql.Result) error {
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, notifyOutbox, id)
	return err
}
