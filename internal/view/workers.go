package view

import (
	"cmp"
	"slices"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Worker is one worker of a board several machines share (`bonsai
// status`): a heartbeat process ("host:pid") seen through its runs and
// leases.
type Worker struct {
	ID string `json:"id"`
	// LastSeen is the newest sign of its beats: a run it started or
	// finished, or a lease it took or renewed.
	LastSeen time.Time `json:"lastSeen"`
	// Leases are the tickets it holds now.
	Leases []string `json:"leases"`
}

// Workers lists the workers of the leases and runs, newest first. A
// lease's renewal is read from its expiry less ttl, the lease time.
func Workers(leases []board.Lease, runs []Run, ttl time.Duration) []Worker {
	by := map[string]*Worker{}
	get := func(id string) *Worker {
		w := by[id]
		if w == nil {
			w = &Worker{ID: id, Leases: []string{}}
			by[id] = w
		}
		return w
	}
	seen := func(w *Worker, t time.Time) {
		if t.After(w.LastSeen) {
			w.LastSeen = t
		}
	}
	for _, r := range runs {
		if r.WorkerID == "" {
			continue
		}
		w := get(r.WorkerID)
		seen(w, r.StartedAt)
		if r.FinishedAt != nil {
			seen(w, *r.FinishedAt)
		}
	}
	for _, l := range leases {
		w := get(l.Worker)
		w.Leases = append(w.Leases, l.Ref.String())
		seen(w, l.AcquiredAt)
		seen(w, l.ExpiresAt.Add(-ttl))
	}
	out := make([]Worker, 0, len(by))
	for _, w := range by {
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b Worker) int {
		if c := b.LastSeen.Compare(a.LastSeen); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}
