package view

import (
	"cmp"
	"slices"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Worker is one worker of a board several machines share (`bonsai
// status`): a process that beats in one data directory of a machine, as
// the workers registry records it (board.WorkerBeat), or, for a lease
// holder the registry does not know, as its lease shows it.
type Worker struct {
	ID string `json:"id"`
	// Host, Dir, PID, Version, Kind and StartedAt are what its beats
	// record; empty for a lease holder the registry does not know.
	Host      string     `json:"host,omitempty"`
	Dir       string     `json:"dir,omitempty"`
	PID       int        `json:"pid,omitempty"`
	Version   string     `json:"version,omitempty"`
	Kind      string     `json:"kind,omitempty"`
	StartedAt *time.Time `json:"startedAt,omitempty"`
	// LastBeat is its newest recorded beat; nil when it recorded none.
	LastBeat *time.Time `json:"lastBeat,omitempty"`
	// StoppedAt is when it said it stopped (a signal ended `bonsai
	// worker`); nil while it runs or when it died unannounced.
	StoppedAt *time.Time `json:"stoppedAt,omitempty"`
	// LastSeen is the newest sign of it: a beat, a run it started or
	// finished, a lease it took or renewed.
	LastSeen time.Time `json:"lastSeen"`
	// Gone says it has shown no sign for longer than a worker that runs
	// would (WorkersOptions.Quiet) and did not say it stopped: its process
	// died, or its machine is down or cut off from the store.
	Gone bool `json:"gone"`
	// Leases are the tickets it holds now.
	Leases []string `json:"leases"`
}

// WorkersOptions is what Workers needs besides the records.
type WorkersOptions struct {
	// TTL is the lease time: a lease's renewal is read from its expiry
	// less TTL.
	TTL time.Duration
	// Now and Quiet tell a gone worker: one not seen since Now-Quiet.
	Now   time.Time
	Quiet time.Duration
}

// QuietAfter is how long a worker that beats every interval may show no
// sign before status calls it gone: three intervals, at least an hour (a
// beat may run for half an hour; its runs renew their leases meanwhile).
func QuietAfter(interval time.Duration) time.Duration {
	return max(time.Hour, 3*interval)
}

// Workers lists the workers of the registry, and the lease holders it
// does not know (a process whose record another one in its data directory
// replaced, or a lease taken by hand), newest sign first. Runs only
// refresh the signs of those workers: a run's worker that is neither is
// an old process, not a worker now.
func Workers(registry []board.WorkerBeat, leases []board.Lease, runs []Run, o WorkersOptions) []Worker {
	by := map[string]*Worker{}
	for _, b := range registry {
		w := &Worker{ID: b.ID, Host: b.Host, Dir: b.Dir, PID: b.PID, Version: b.Version, Kind: b.Kind,
			StartedAt: &b.StartedAt, LastBeat: &b.SeenAt, StoppedAt: b.StoppedAt, LastSeen: b.SeenAt, Leases: []string{}}
		by[b.ID] = w
	}
	seen := func(w *Worker, t time.Time) {
		if t.After(w.LastSeen) {
			w.LastSeen = t
		}
	}
	for _, l := range leases {
		w := by[l.Worker]
		if w == nil {
			w = &Worker{ID: l.Worker, Leases: []string{}}
			by[l.Worker] = w
		}
		w.Leases = append(w.Leases, l.Ref.String())
		seen(w, l.AcquiredAt)
		seen(w, l.ExpiresAt.Add(-o.TTL))
	}
	for _, r := range runs {
		w := by[r.WorkerID]
		if w == nil {
			continue
		}
		seen(w, r.StartedAt)
		if r.FinishedAt != nil {
			seen(w, *r.FinishedAt)
		}
	}
	out := make([]Worker, 0, len(by))
	for _, w := range by {
		w.Gone = w.StoppedAt == nil && w.LastSeen.Before(o.Now.Add(-o.Quiet))
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
