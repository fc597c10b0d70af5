package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// newWorkerCmd is `bonsai worker`: the heartbeat in a loop, in one
// long-running process, for a machine that works tickets of a shared board
// and serves no UI (docs/postgres.md).
func newWorkerCmd(a *app) *cobra.Command {
	var service bool
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run heartbeats in a loop: a machine that works tickets and serves no UI",
		Long: `Run a beat at once and then one every heartbeat.intervalSec seconds, until
SIGINT (Ctrl-C) or SIGTERM. Each beat is what 'bonsai heartbeat' does: it
takes this machine's heartbeat lock for the beat, picks one ticket per
project, runs the agents and prints its report. A beat in which an agent
completed a run is followed by the next one a second later, not after the
interval, so a worker drains the board rather than waiting a whole interval
for each step of a ticket; one whose tickets waited for leases other
workers hold, five seconds later. A beat that fails is reported on stderr and the
next one runs on time; the interval is read from config.json before each
wait.

It is meant for the machines of a board on Postgres (store.url or
BONSAI_DATABASE_URL, docs/postgres.md), where every run holds its ticket's
lease, so any number of workers share the work, one agent per project; a
'bonsai serve' on one machine shows them all. There each beat records the
worker (its version, its last beat), so 'bonsai status' lists every worker,
also an idle one, with its last beat and its leases. It also works on one
machine's SQLite board, which records no workers.

A signal stops the worker: a beat that runs gets the signal as 'bonsai
heartbeat' would (its runs stop and are recorded), the worker records on a
Postgres board that it stopped, then exits 0. 'bonsai service install
--worker' runs it as the long-running service (systemd, launchd, or a Task
Scheduler task started at logon on Windows).`,
		Example: `  BONSAI_DATABASE_URL=postgres://bonsai@db.internal/bonsai bonsai worker
  bonsai service install --worker`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWorker(cmd, a, service)
		},
	}
	cmd.Flags().BoolVar(&service, "service", false, "record each beat's outcome for 'bonsai service status' (the worker service passes it)")
	cmd.Flags().MarkHidden("service")
	return cmd
}

// runWorker beats until the command's context ends (a signal).
func runWorker(cmd *cobra.Command, a *app, service bool) error {
	ctx := cmd.Context()
	a.loop = true
	where := "the SQLite board in the data directory"
	u, err := a.storeURL()
	if err != nil {
		return err
	}
	if u != "" {
		where = postgres.Redact(u)
	}
	host, _ := os.Hostname()
	fmt.Fprintf(a.stdout, "Worker %s:%d on %s; a beat every heartbeat.intervalSec (%s); SIGINT or SIGTERM stops it.\n",
		host, os.Getpid(), where, workerInterval(a))
	for {
		o := heartbeatOptions{service: service}
		started := a.now()
		err := runHeartbeat(cmd, a, &o)
		if ctx.Err() != nil {
			return workerStopped(ctx, a)
		}
		if service {
			recordServiceBeat(a, started, o.report, err)
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "bonsai: beat failed: %s\n", termsafe.Text(err.Error()))
		}
		t := time.NewTimer(heartbeat.NextBeat(o.report, workerInterval(a)))
		select {
		case <-ctx.Done():
			t.Stop()
			return workerStopped(ctx, a)
		case <-t.C:
		}
	}
}

// workerStopped records on a shared board that the worker stopped, with a
// few seconds for it, and says it stopped.
func workerStopped(ctx context.Context, a *app) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	recordWorkerStopped(ctx, a)
	fmt.Fprintln(a.stdout, "Worker stopped.")
	return nil
}

// workerInterval is heartbeat.intervalSec, read before every wait so a
// change applies from the next beat.
func workerInterval(a *app) time.Duration {
	c, err := a.config()
	if err != nil || c.Heartbeat.IntervalSec <= 0 {
		return time.Minute
	}
	return time.Duration(c.Heartbeat.IntervalSec) * time.Second
}
