package heartbeat

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/session"
)

// RunMark is the environment variable every command of a run's agent gets,
// holding the run's ID. Its processes keep it through setsid and double
// forks, so a later beat can find what a dead beat's run left running.
const RunMark = "BONSAI_RUN_ID"

// interruptedError is the error text of a run a dead beat left running.
const interruptedError = "the heartbeat running it stopped before the run finished"

// marker is an executor that can mark the commands it starts.
type marker interface{ Mark(kv string) }

// runMark is the KEY=VALUE pair that marks the commands of run id.
func runMark(id string) string { return RunMark + "=" + id }

// reaper kills what the commands of a run left running
// (Options.Reap).
type reaper struct {
	reap func(mark string) (int, error) // nil reaps nothing
	log  *slog.Logger
}

// kill kills the processes the commands of run id left, and reports
// whether none is left. A failure is logged.
func (rp reaper) kill(id string) bool {
	if rp.reap == nil {
		return true
	}
	n, err := rp.reap(runMark(id))
	if n > 0 {
		rp.log.Warn("killed processes a run left", "run", id, "count", n)
	}
	if err != nil {
		rp.log.Error("kill processes a run left", "run", id, "err", err)
		return false
	}
	return true
}

// reconcileStore is what reconciling reads and writes: the runs still
// running, and their end.
type reconcileStore interface {
	RunningRuns(ctx context.Context) ([]board.Run, error)
	FinishRun(ctx context.Context, r board.Run) (board.Run, error)
}

// reconciler ends the runs a dead beat of this machine left running.
type reconciler struct {
	store    reconcileStore
	leases   *leaseKeeper // nil on one machine's board
	reaper   reaper
	runner   AgentRunner // charges a run what its transcript recorded, when a Charger
	sessions string      // Options.Sessions
	worker   string      // Options.WorkerID
	log      *slog.Logger
}

// reconcile ends the runs a dead beat of this machine left running (this
// beat holds the machine's lock, so no live beat here owns them; a run
// another machine's worker started, or whose worker holds its ticket's
// lease, is left running and its ticket busy): it kills the processes
// their commands left, then marks each interrupted, charged with the
// usage its transcript recorded since it started. A run whose processes could not
// all be killed stays running, and its ticket is returned in busy, so no
// agent starts in a worktree where one still lives.
func (rc reconciler) reconcile(ctx context.Context) (n int, busy map[string]bool, err error) {
	runs, err := rc.store.RunningRuns(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("reconcile: %w", err)
	}
	busy = map[string]bool{}
	held := map[string]bool{}
	if rc.leases != nil {
		if held, err = rc.leases.held(ctx, runs); err != nil {
			return 0, nil, fmt.Errorf("reconcile: %w", err)
		}
	}
	for _, r := range runs {
		if otherMachine(r.WorkerID, rc.worker) || held[r.ID] {
			// On a board shared by several machines (Postgres), a
			// beat elsewhere may own it: this lock says nothing about
			// that beat, so the run is left to it, and its ticket to
			// its agent. The same goes for a run of this host whose
			// worker holds its ticket's lease: several data
			// directories (machines) may share one host name, and
			// their runs live as long as their leases; a lease that
			// runs out interrupts its run (leaseKeeper.expire).
			busy[r.TicketID] = true
			continue
		}
		if !rc.reaper.kill(r.ID) {
			busy[r.TicketID] = true
			continue
		}
		if err := rc.charge(&r); err != nil {
			rc.log.Error("read the usage of an interrupted run", "run", r.ID, "err", err)
		}
		r.Status, r.Error = board.RunInterrupted, interruptedError
		if _, err := rc.store.FinishRun(ctx, r); board.ErrorCode(err) == board.ECONFLICT {
			// Finished meanwhile: by its own beat, or a lease expiry or
			// another data directory's beat on a shared board.
			rc.log.Info("run finished while this beat reconciled it", "run", r.ID, "err", err)
			continue
		} else if err != nil {
			return n, busy, fmt.Errorf("reconcile: %w", err)
		}
		n++
	}
	return n, busy, nil
}

// charge sets r's usage to what its ticket's transcript recorded since
// the run started, as the runner that wrote it reads it (none when it
// cannot be read, or the runner cannot tell).
func (rc reconciler) charge(r *board.Run) error {
	r.Usage = board.Usage{}
	c, ok := rc.runner.(Charger)
	if !ok {
		return nil
	}
	path, err := session.Layout{Root: rc.sessions}.Transcript(r.ProjectID, r.TicketID)
	if err != nil {
		return err
	}
	r.Usage, err = c.Spent(path, r.StartedAt)
	return err
}

// otherMachine reports whether a run's worker ID names another machine
// than this beat's: both "host:pid" with different hosts. IDs of another
// form (tests, older runs) are taken as this machine's.
func otherMachine(runWorker, ours string) bool {
	i, j := strings.LastIndexByte(runWorker, ':'), strings.LastIndexByte(ours, ':')
	return i > 0 && j > 0 && runWorker[:i] != ours[:j]
}
