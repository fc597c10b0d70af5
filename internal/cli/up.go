package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/beater"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

func newUpCmd(a *app) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Initialise, serve the web UI and fire the heartbeat: one command to start",
		Long: `Initialise the data directory if needed, serve the web UI (as 'bonsai serve')
and, unless the heartbeat service is installed ('bonsai service install'),
fire 'bonsai heartbeat' as a child process every heartbeat.intervalSec
seconds until interrupted. Each beat is a fresh short-lived process; a failed
beat is logged to logs/up.log and the next one runs on time. It prints a line
when a run starts and when it ends (result, duration, turns, tokens, cost),
and why a ticket is not run each time that reason changes. On start it prints
the next steps before agents can work, while any is left: add a project,
store a key for the model agents would use.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUp(cmd.Context(), a, o)
		},
	}
	addServeFlags(cmd, &o)
	return cmd
}

func runUp(ctx context.Context, a *app, o serveOptions) error {
	srv, l, url, closeLog, err := startServer(ctx, a, o)
	if err != nil {
		return err
	}
	defer closeLog()
	logFile, err := os.OpenFile(a.dir.Path("logs", "up.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open up log: %w", err)
	}
	defer logFile.Close()
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the bonsai executable: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	say := &beater.SyncWriter{W: a.stdout}
	if svc, err := a.service(); err == nil && svc.Installed() {
		// The service manager fires the beats; two schedulers would only
		// make beats find the lock taken.
		close(done)
		fmt.Fprintf(say, "The heartbeat service (%s) fires the heartbeat.\n", svc.Platform.Name)
	} else {
		b := &beater.Beater{Exe: exe, Dir: a.dir, Log: slog.New(slog.NewTextHandler(logFile, nil)), Out: logFile, Say: say}
		go func() { defer close(done); b.Run(ctx) }()
		fmt.Fprintf(say, "Firing 'bonsai heartbeat' every %s (heartbeat.intervalSec), logged to %s; Ctrl-C stops.\n",
			b.Interval(), logFile.Name())
	}
	fmt.Fprintf(say, "Bonsai is running at %s\n", url)
	if st, err := a.openStore(ctx); err == nil {
		text.WriteNextSteps(say, a.nextSteps(ctx, st, true))
	}
	err = srv.Serve(ctx, l)
	cancel()
	<-done
	return err
}

// upProgress is the progress of a beat `bonsai up` started: lines, and
// the structured events the loop reads (beater.OpenEvents) when it asked
// for them; stop closes the events pipe.
func upProgress(a *app, lines func(heartbeat.Progress)) (progress func(heartbeat.Progress), stop func()) {
	events, closeEvents, err := beater.OpenEvents(a.env)
	if err != nil {
		fmt.Fprintf(a.stderr, "bonsai: warning: %v\n", err)
	}
	if events == nil {
		return lines, func() {}
	}
	return func(p heartbeat.Progress) { lines(p); events(p) }, func() { closeEvents() }
}
