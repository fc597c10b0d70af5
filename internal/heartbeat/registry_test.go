package heartbeat_test

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestBeat_RecordsWorker: on a shared board every beat that takes the
// lock records its worker, also an idle one; on one machine's board
// nothing is recorded, so an idle beat writes nothing.
func TestBeat_RecordsWorker(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	started := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	e.opts.WorkerID, e.opts.Registry = "here:7", e.db
	e.opts.Worker = board.WorkerBeat{Host: "here", Dir: e.data, PID: 7, Version: "v9", Kind: board.WorkerLoop, StartedAt: started}

	e.beat()
	if ws, err := e.db.Workers(t.Context()); err != nil || len(ws) != 0 {
		t.Fatalf("one machine's board: Workers = %+v, %v; want none", ws, err)
	}

	e.opts.SharedBoard = true
	before := time.Now().Add(-time.Second)
	e.beat()
	ws, err := e.db.Workers(t.Context())
	if err != nil || len(ws) != 1 {
		t.Fatalf("Workers = %+v, %v; want this worker", ws, err)
	}
	w := ws[0]
	if w.ID != "here:7" || w.Host != "here" || w.Dir != e.data || w.PID != 7 || w.Version != "v9" ||
		w.Kind != board.WorkerLoop || !w.StartedAt.Equal(started) || w.SeenAt.Before(before) || w.StoppedAt != nil {
		t.Errorf("recorded %+v", w)
	}
}
