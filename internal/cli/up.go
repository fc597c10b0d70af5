package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"time"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/spf13/cobra"
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
beat is logged to logs/up.log and the next one runs on time.`,
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
	if svc, err := a.service(); err == nil && svc.Installed() {
		// The service manager fires the beats; two schedulers would only
		// make beats find the lock taken.
		close(done)
		fmt.Fprintf(a.stdout, "The heartbeat service (%s) fires the heartbeat.\n", svc.Platform.Name)
	} else {
		b := &beater{exe: exe, dir: a.dir, log: slog.New(slog.NewTextHandler(logFile, nil)), out: logFile}
		go func() { defer close(done); b.run(ctx) }()
		fmt.Fprintf(a.stdout, "Firing 'bonsai heartbeat' every %s (heartbeat.intervalSec), logged to %s; Ctrl-C stops.\n",
			b.interval(), logFile.Name())
	}
	fmt.Fprintf(a.stdout, "Bonsai is running at %s\n", url)
	err = srv.Serve(ctx, l)
	cancel()
	<-done
	return err
}

// beater fires `bonsai heartbeat` every heartbeat.intervalSec.
type beater struct {
	exe string
	dir config.Dir
	log *slog.Logger
	out io.Writer // the children's output
}

// run fires a beat at once, then one per interval, until ctx is done. The
// interval is read from config.json before each wait, so a change on the
// settings page applies from the next beat.
func (b *beater) run(ctx context.Context) {
	for {
		b.beat(ctx)
		t := time.NewTimer(b.interval())
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (b *beater) interval() time.Duration {
	c, err := config.Load(b.dir.ConfigFile())
	if err != nil {
		b.log.Warn("read config", "err", err)
		c = config.Default()
	}
	return time.Duration(c.Heartbeat.IntervalSec) * time.Second
}

// beat runs one heartbeat process and logs how it ended. On shutdown the
// child gets an interrupt and 30 seconds to finish writing its results.
func (b *beater) beat(ctx context.Context) {
	start := time.Now()
	cmd := exec.CommandContext(ctx, b.exe, "heartbeat")
	cmd.Env = append(os.Environ(), "BONSAI_DATA_DIR="+string(b.dir))
	cmd.Stdout, cmd.Stderr = b.out, b.out
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	if err := cmd.Run(); err != nil {
		b.log.Error("heartbeat failed", "err", err, "ms", time.Since(start).Milliseconds())
		return
	}
	b.log.Info("heartbeat", "ms", time.Since(start).Milliseconds())
}
