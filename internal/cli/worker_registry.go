package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
)

// processStarted is when this process started, as its worker records it.
var processStarted = time.Now()

// workerBeat is what this process's beats record of their worker on a
// shared board (store.Workers): host, data directory d, pid, version,
// kind and start.
func (a *app) workerBeat(d config.Dir, host string) board.WorkerBeat {
	kind := board.WorkerOneShot
	if a.loop {
		kind = board.WorkerLoop
	}
	return board.WorkerBeat{ID: fmt.Sprintf("%s:%d", host, os.Getpid()), Host: host, Dir: d.Path(), PID: os.Getpid(),
		Version: versionNumber(), Kind: kind, StartedAt: processStarted}
}

// recordWorkerStopped records on a shared board that this worker stopped,
// so status says so instead of waiting for its beats to grow old. A
// failure is reported on stderr: the worker stops all the same.
func recordWorkerStopped(ctx context.Context, a *app) {
	if u, err := a.storeURL(); err != nil || u == "" {
		return
	}
	d, err := a.dataDir()
	if err != nil {
		return
	}
	st, err := a.openStore(ctx)
	if err == nil {
		host, _ := os.Hostname()
		b := a.workerBeat(d, host)
		now := a.now()
		b.StoppedAt = &now
		_, err = st.RecordBeat(ctx, b)
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "bonsai: could not record that the worker stopped: %v\n", err)
	}
}
