package view

import (
	"slices"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

func TestWorkers(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	done := t0.Add(2 * time.Minute)
	stopped := t0.Add(3 * time.Minute)
	registry := []board.WorkerBeat{
		{ID: "a:1", Host: "a", Dir: "/d", PID: 1, Version: "v1", Kind: board.WorkerLoop, StartedAt: t0, SeenAt: t0},
		// idle: no lease, no run, but it beats
		{ID: "c:3", Host: "c", Dir: "/d", PID: 3, Version: "v1", Kind: board.WorkerLoop, StartedAt: t0, SeenAt: t0.Add(4 * time.Minute)},
		{ID: "d:4", Host: "d", Dir: "/d", PID: 4, Kind: board.WorkerLoop, StartedAt: t0, SeenAt: stopped, StoppedAt: &stopped},
		{ID: "e:5", Host: "e", Dir: "/d", PID: 5, Kind: board.WorkerOneShot, StartedAt: t0, SeenAt: t0.Add(-2 * time.Hour)},
	}
	runs := []Run{
		{Run: board.Run{WorkerID: "a:1", StartedAt: t0, FinishedAt: &done}},
		{Run: board.Run{WorkerID: "b:2", StartedAt: t0.Add(time.Minute)}},
		{Run: board.Run{WorkerID: "old:9", StartedAt: t0.Add(time.Minute)}}, // a process gone since: no worker now
		{Run: board.Run{StartedAt: t0.Add(time.Hour)}},                      // a run from before workers: no worker
	}
	leases := []board.Lease{{Ref: board.Ref{Project: "demo", Number: 3}, Worker: "b:2",
		AcquiredAt: t0.Add(time.Minute), ExpiresAt: t0.Add(5*time.Minute + 30*time.Second)}}
	got := Workers(registry, leases, runs, WorkersOptions{TTL: 30 * time.Second, Now: t0.Add(5 * time.Minute), Quiet: time.Hour})
	var ids []string
	for _, w := range got {
		ids = append(ids, w.ID)
	}
	if want := []string{"b:2", "c:3", "d:4", "a:1", "e:5"}; !slices.Equal(ids, want) {
		t.Fatalf("workers %v, want %v", ids, want)
	}
	// b:2 holds a lease the registry does not know: seen by its renewal
	// at 12:05, after its run.
	if w := got[0]; !w.LastSeen.Equal(t0.Add(5*time.Minute)) || !slices.Equal(w.Leases, []string{"demo#3"}) || w.LastBeat != nil || w.Gone {
		t.Errorf("lease holder %+v", w)
	}
	if w := got[1]; w.LastBeat == nil || !w.LastBeat.Equal(t0.Add(4*time.Minute)) || len(w.Leases) != 0 || w.Gone || w.Version != "v1" {
		t.Errorf("idle worker %+v", w)
	}
	if w := got[2]; w.StoppedAt == nil || w.Gone {
		t.Errorf("stopped worker %+v", w)
	}
	// a:1's last beat was at 12:00, its run ended at 12:02.
	if w := got[3]; !w.LastSeen.Equal(done) || !w.LastBeat.Equal(t0) || w.Gone {
		t.Errorf("a:1 %+v", w)
	}
	if w := got[4]; !w.Gone {
		t.Errorf("a worker quiet for two hours %+v; want it gone", w)
	}
}

func TestQuietAfter(t *testing.T) {
	if got := QuietAfter(time.Minute); got != time.Hour {
		t.Errorf("QuietAfter(1m) = %s", got)
	}
	if got := QuietAfter(time.Hour); got != 3*time.Hour {
		t.Errorf("QuietAfter(1h) = %s", got)
	}
}
