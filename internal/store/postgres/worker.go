package postgres

import (
	"context"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

const workerColumns = `id, host, dir, pid, version, kind, started_at, seen_at, stopped_at`

func scanWorker(s scanner) (board.WorkerBeat, error) {
	var b board.WorkerBeat
	var started, seen int64
	var stopped *int64
	err := s.Scan(&b.ID, &b.Host, &b.Dir, &b.PID, &b.Version, &b.Kind, &started, &seen, &stopped)
	b.StartedAt, b.SeenAt = fromMillis(started), fromMillis(seen)
	if stopped != nil {
		t := fromMillis(*stopped)
		b.StoppedAt = &t
	}
	return b, err
}

// RecordBeat stores a worker's beat; see store.Workers.
func (db *DB) RecordBeat(ctx context.Context, b board.WorkerBeat) (board.WorkerBeat, error) {
	if err := board.CheckWorkerBeat(b); err != nil {
		return board.WorkerBeat{}, err
	}
	err := db.inTx(ctx, false, func(tx *tx) error { // no event: no write lock
		b.SeenAt = tx.now
		if b.StartedAt.IsZero() {
			b.StartedAt = tx.now
		}
		b.StartedAt = fromMillis(b.StartedAt.UnixMilli())
		var stopped *int64
		if b.StoppedAt != nil {
			ms := tx.nowMs()
			stopped, b.StoppedAt = &ms, &b.SeenAt
		}
		if _, err := tx.exec(`DELETE FROM workers WHERE seen_at < $1`, tx.now.Add(-board.WorkerForgotten).UnixMilli()); err != nil {
			return err
		}
		_, err := tx.exec(`INSERT INTO workers (`+workerColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (host, dir) DO UPDATE SET id = excluded.id, pid = excluded.pid, version = excluded.version,
			kind = excluded.kind, started_at = excluded.started_at, seen_at = excluded.seen_at, stopped_at = excluded.stopped_at`,
			b.ID, b.Host, b.Dir, b.PID, b.Version, b.Kind, b.StartedAt.UnixMilli(), tx.nowMs(), stopped)
		return err
	})
	if err != nil {
		return board.WorkerBeat{}, wrap(err, "record worker %s's beat", b.ID)
	}
	return b, nil
}

// Workers lists the workers seen lately; see store.Workers.
func (db *DB) Workers(ctx context.Context) ([]board.WorkerBeat, error) {
	since := db.timestamp().Add(-board.WorkerForgotten).UnixMilli()
	rows, err := db.pool.Query(ctx, `SELECT `+workerColumns+` FROM workers WHERE seen_at >= $1 ORDER BY seen_at DESC, id`, since)
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	defer rows.Close()
	ws := []board.WorkerBeat{}
	for rows.Next() {
		b, err := scanWorker(rows)
		if err != nil {
			return nil, fmt.Errorf("list workers: %w", err)
		}
		ws = append(ws, b)
	}
	return ws, rows.Err()
}
