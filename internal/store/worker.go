package store

import (
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Scanner is one row of either store's driver.
type Scanner interface{ Scan(dest ...any) error }

// WorkerColumns are the workers table's columns, in the order ScanWorker
// reads them and WorkerRow gives their values.
const WorkerColumns = `id, host, dir, pid, version, kind, started_at, seen_at, stopped_at`

// ScanWorker reads a row of WorkerColumns.
func ScanWorker(s Scanner) (board.WorkerBeat, error) {
	var b board.WorkerBeat
	var started, seen int64
	var stopped *int64
	err := s.Scan(&b.ID, &b.Host, &b.Dir, &b.PID, &b.Version, &b.Kind, &started, &seen, &stopped)
	b.StartedAt, b.SeenAt = millis(started), millis(seen)
	if stopped != nil {
		t := millis(*stopped)
		b.StoppedAt = &t
	}
	return b, err
}

// WorkerRow is beat b as the store records it at now: seen now, started
// now when it does not say, stopped now when it says it stopped, in
// milliseconds; and the values of WorkerColumns for it.
func WorkerRow(b board.WorkerBeat, now time.Time) (board.WorkerBeat, []any) {
	now = millis(now.UnixMilli())
	b.SeenAt = now
	if b.StartedAt.IsZero() {
		b.StartedAt = now
	}
	b.StartedAt = millis(b.StartedAt.UnixMilli())
	var stopped *int64
	if b.StoppedAt != nil {
		ms := now.UnixMilli()
		stopped, b.StoppedAt = &ms, &b.SeenAt
	}
	return b, []any{b.ID, b.Host, b.Dir, b.PID, b.Version, b.Kind, b.StartedAt.UnixMilli(), now.UnixMilli(), stopped}
}

// millis is a time read from the store: unix milliseconds, in UTC.
func millis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
