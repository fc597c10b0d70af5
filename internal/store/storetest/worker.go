package storetest

import (
	"strconv"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var workerCases = []testCase{
	{"Record", testWorkerRecord},
	{"Stopped", testWorkerStopped},
	{"Forgotten", testWorkerForgotten},
	{"Errors", testWorkerErrors},
}

// beat returns a worker's beat on host in dir by process pid.
func beat(host, dir string, pid int) board.WorkerBeat {
	return board.WorkerBeat{ID: host + ":" + strconv.Itoa(pid), Host: host, Dir: dir, PID: pid, Version: "v1.2.3",
		Kind: board.WorkerLoop, StartedAt: start.Add(-time.Hour + 1500*time.Microsecond)}
}

// mustBeat records b or fails the test.
func mustBeat(t *testing.T, s store.Store, b board.WorkerBeat) board.WorkerBeat {
	t.Helper()
	got, err := s.RecordBeat(t.Context(), b)
	if err != nil {
		t.Fatalf("RecordBeat(%s): %v", b.ID, err)
	}
	return got
}

// workerIDs lists the workers as "id seen-offset", the offset from start.
func workerIDs(t *testing.T, s store.Store) []string {
	t.Helper()
	ws, err := s.Workers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, w := range ws {
		out = append(out, w.ID+" "+w.SeenAt.Sub(start).String())
	}
	return out
}

// testWorkerRecord: a beat is stored with the store's time, one record per
// host and data directory, the newest process's; none of it is an event.
func testWorkerRecord(t *testing.T, s store.Store, clock *clock) {
	same(t, "no workers", workerIDs(t, s), []string{})
	before := lastEventID(t, s)
	b := beat("a", "/d", 1)
	got := mustBeat(t, s, b)
	want := b
	want.SeenAt, want.StartedAt = clock.Now(), b.StartedAt.Truncate(time.Millisecond)
	same(t, "recorded", got, want)
	wantRecent(t, "SeenAt", got.SeenAt)
	ws, err := s.Workers(t.Context())
	if err != nil || len(ws) != 1 {
		t.Fatalf("Workers = %+v, %v", ws, err)
	}
	same(t, "listed", ws[0], want)

	clock.advance(time.Minute)
	mustBeat(t, s, beat("b", "/d", 2))
	clock.advance(time.Minute)
	mustBeat(t, s, beat("a", "/other", 3)) // another data directory: another worker
	same(t, "workers", workerIDs(t, s), []string{"a:3 2m0s", "b:2 1m0s", "a:1 0s"})
	clock.advance(time.Minute)
	mustBeat(t, s, beat("a", "/d", 1))
	same(t, "workers after a beat", workerIDs(t, s), []string{"a:1 3m0s", "a:3 2m0s", "b:2 1m0s"})
	clock.advance(time.Minute)
	next := beat("a", "/d", 4) // a new process in a's data directory replaces a:1
	next.Kind, next.Version = board.WorkerOneShot, "v1.2.4"
	mustBeat(t, s, next)
	same(t, "workers after a new process", workerIDs(t, s), []string{"a:4 4m0s", "a:3 2m0s", "b:2 1m0s"})
	ws, _ = s.Workers(t.Context())
	if ws[0].Kind != board.WorkerOneShot || ws[0].Version != "v1.2.4" || ws[0].PID != 4 {
		t.Errorf("the replacing record = %+v", ws[0])
	}
	wantEvents(t, s, before)
}

// testWorkerStopped: a record with StoppedAt says the worker stopped, at
// the store's time; its next beat clears it.
func testWorkerStopped(t *testing.T, s store.Store, clock *clock) {
	mustBeat(t, s, beat("a", "/d", 1))
	clock.advance(time.Minute)
	b := beat("a", "/d", 1)
	b.StoppedAt = &start // the store's time counts, not the caller's
	got := mustBeat(t, s, b)
	if got.StoppedAt == nil || !got.StoppedAt.Equal(clock.Now()) {
		t.Errorf("StoppedAt = %v, want %v", got.StoppedAt, clock.Now())
	}
	ws, err := s.Workers(t.Context())
	if err != nil || len(ws) != 1 || ws[0].StoppedAt == nil || !ws[0].StoppedAt.Equal(clock.Now()) {
		t.Fatalf("Workers = %+v, %v", ws, err)
	}
	clock.advance(time.Minute)
	mustBeat(t, s, beat("a", "/d", 5))
	if ws, _ := s.Workers(t.Context()); ws[0].StoppedAt != nil || ws[0].ID != "a:5" {
		t.Errorf("after a new beat = %+v; want it running", ws[0])
	}
}

// testWorkerForgotten: a worker not seen for board.WorkerForgotten is not
// listed, and the next record drops it.
func testWorkerForgotten(t *testing.T, s store.Store, clock *clock) {
	mustBeat(t, s, beat("old", "/d", 1))
	clock.advance(time.Hour)
	mustBeat(t, s, beat("new", "/d", 2))
	clock.advance(board.WorkerForgotten - time.Hour)
	same(t, "a week on", workerIDs(t, s), []string{"new:2 1h0m0s", "old:1 0s"})
	clock.advance(time.Millisecond)
	same(t, "a week and a moment on", workerIDs(t, s), []string{"new:2 1h0m0s"})
	mustBeat(t, s, beat("new", "/d", 2))
	clock.advance(-board.WorkerForgotten) // back to when old beat: its record is gone
	same(t, "after a record", workerIDs(t, s), []string{"new:2 168h0m0.001s"})
}

// testWorkerErrors: a record must name its worker, host, data directory
// and a known kind.
func testWorkerErrors(t *testing.T, s store.Store, clock *clock) {
	for _, tc := range []struct {
		edit func(b *board.WorkerBeat)
		msg  string
	}{
		{func(b *board.WorkerBeat) { b.ID = "" }, "ID"},
		{func(b *board.WorkerBeat) { b.Host = "" }, "host"},
		{func(b *board.WorkerBeat) { b.Dir = "" }, "data directory"},
		{func(b *board.WorkerBeat) { b.Kind = "daemon" }, "daemon"},
	} {
		b := beat("a", "/d", 1)
		tc.edit(&b)
		_, err := s.RecordBeat(t.Context(), b)
		wantCode(t, err, board.EINVALID, tc.msg)
	}
	same(t, "workers", workerIDs(t, s), []string{})
}
