package board

import "time"

// WorkerBeat is what a worker of a board several machines share records
// of itself at each beat (issue 18, docs/postgres.md), so `bonsai status`
// lists every worker, also one that holds no lease and ran nothing lately.
// A worker is one data directory of one machine: the heartbeat lock lets
// one beat at a time run there, whether from `bonsai worker`, the
// heartbeat service or `bonsai heartbeat` by hand, so the newest process
// that beat there replaces the one before it.
type WorkerBeat struct {
	// ID names the process as its runs and leases do ("host:pid").
	ID   string `json:"id"`
	Host string `json:"host"`
	// Dir is the machine's data directory the worker beats in.
	Dir     string `json:"dir"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
	// Kind is what beats: "worker" (`bonsai worker`) or "heartbeat" (one
	// beat of `bonsai heartbeat`, the timer service, or `bonsai serve`).
	Kind string `json:"kind"`
	// StartedAt is when the process started.
	StartedAt time.Time `json:"startedAt"`
	// SeenAt is the store's time of the record: the worker's last beat.
	SeenAt time.Time `json:"seenAt"`
	// StoppedAt is when the worker said it stopped (a signal ended
	// `bonsai worker`); nil while it runs, or when it died unannounced.
	StoppedAt *time.Time `json:"stoppedAt,omitempty"`
}

// The kinds of worker.
const (
	WorkerLoop    = "worker"
	WorkerOneShot = "heartbeat"
)

// WorkerForgotten is how long a worker that records nothing stays on the
// board: the store drops workers not seen for longer.
const WorkerForgotten = 7 * 24 * time.Hour

// CheckWorkerBeat refuses a record without the fields that name a worker.
func CheckWorkerBeat(b WorkerBeat) error {
	switch {
	case b.ID == "":
		return Errorf(EINVALID, "a worker's beat needs the worker's ID (host:pid)")
	case b.Host == "":
		return Errorf(EINVALID, "worker %s: a beat needs the worker's host", b.ID)
	case b.Dir == "":
		return Errorf(EINVALID, "worker %s: a beat needs the worker's data directory", b.ID)
	case b.Kind != WorkerLoop && b.Kind != WorkerOneShot:
		return Errorf(EINVALID, "worker %s: kind %q is neither %q nor %q", b.ID, b.Kind, WorkerLoop, WorkerOneShot)
	}
	return nil
}
