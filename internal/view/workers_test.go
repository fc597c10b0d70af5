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
	runs := []Run{
		{Run: board.Run{WorkerID: "a:1", StartedAt: t0, FinishedAt: &done}},
		{Run: board.Run{WorkerID: "b:2", StartedAt: t0.Add(time.Minute)}},
		{Run: board.Run{StartedAt: t0.Add(time.Hour)}}, // a run from before workers: no worker
	}
	leases := []board.Lease{{Ref: board.Ref{Project: "demo", Number: 3}, Worker: "b:2",
		AcquiredAt: t0.Add(time.Minute), ExpiresAt: t0.Add(5*time.Minute + 30*time.Second)}}
	got := Workers(leases, runs, 30*time.Second)
	if len(got) != 2 {
		t.Fatalf("workers %+v", got)
	}
	// b:2 renewed its lease at 12:05, after a:1's run ended at 12:02.
	if got[0].ID != "b:2" || !got[0].LastSeen.Equal(t0.Add(5*time.Minute)) || !slices.Equal(got[0].Leases, []string{"demo#3"}) {
		t.Errorf("first %+v", got[0])
	}
	if got[1].ID != "a:1" || !got[1].LastSeen.Equal(done) || len(got[1].Leases) != 0 {
		t.Errorf("second %+v", got[1])
	}
}
