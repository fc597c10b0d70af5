package sqlstore

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// RecordBeat stores a worker's beat; see store.Workers.
func (db *DB) RecordBeat(ctx context.Context, b board.WorkerBeat) (board.WorkerBeat, error) {
	if err := board.CheckWorkerBeat(b); err != nil {
		return board.WorkerBeat{}, err
	}
	err := db.inTx(ctx, false, func(tx *tx) error { // no event: no write order
		var row []any
		b, row = store.WorkerRow(b, tx.now)
		if _, err := tx.exec(`DELETE FROM workers WHERE seen_at < ?`, tx.now.Add(-board.WorkerForgotten).UnixMilli()); err != nil {
			return err
		}
		_, err := tx.exec(`INSERT INTO workers (`+store.WorkerColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (host, dir) DO UPDATE SET id = excluded.id, pid = excluded.pid, version = excluded.version,
			kind = excluded.kind, started_at = excluded.started_at, seen_at = excluded.seen_at, stopped_at = excluded.stopped_at`,
			row...)
		return err
	})
	return result(b, wrap(err, "record worker %s's beat", b.ID))
}

// Workers lists the workers seen lately; see store.Workers.
func (db *DB) Workers(ctx context.Context) ([]board.WorkerBeat, error) {
	since := db.Timestamp().Add(-board.WorkerForgotten).UnixMilli()
	ws, err := list(ctx, db, store.ScanWorker, `SELECT `+store.WorkerColumns+` FROM workers WHERE seen_at >= ? ORDER BY seen_at DESC, id`, since)
	return result(ws, wrap(err, "list workers"))
}
