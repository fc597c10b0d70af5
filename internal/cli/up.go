package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/termsafe"
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
	say := &lockedWriter{w: a.stdout}
	if svc, err := a.service(); err == nil && svc.Installed() {
		// The service manager fires the beats; two schedulers would only
		// make beats find the lock taken.
		close(done)
		fmt.Fprintf(say, "The heartbeat service (%s) fires the heartbeat.\n", svc.Platform.Name)
	} else {
		b := &beater{exe: exe, dir: a.dir, log: slog.New(slog.NewTextHandler(logFile, nil)), out: logFile,
			say: say}
		go func() { defer close(done); b.run(ctx) }()
		fmt.Fprintf(say, "Firing 'bonsai heartbeat' every %s (heartbeat.intervalSec), logged to %s; Ctrl-C stops.\n",
			b.interval(), logFile.Name())
	}
	fmt.Fprintf(say, "Bonsai is running at %s\n", url)
	if st, err := a.openStore(ctx); err == nil {
		printNextSteps(say, a.nextSteps(ctx, st, true))
	}
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
	// say is the person's terminal: a line per run start and end, and
	// each skip reason when it changes.
	say io.Writer
	// skips are the skip reasons of the last beat, by ticket.
	skips map[string]string
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
	pr, pw := io.Pipe()
	copied := make(chan struct{})
	go func() { defer close(copied); b.relay(pr) }()
	cmd.Stdout, cmd.Stderr = pw, b.out
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	err := cmd.Run()
	pw.Close()
	<-copied
	if err != nil {
		b.log.Error("heartbeat failed", "err", err, "ms", time.Since(start).Milliseconds())
		return
	}
	b.noteSkips()
	b.log.Info("heartbeat", "ms", time.Since(start).Milliseconds())
}

// runLine matches the lines `bonsai heartbeat` prints off a terminal when
// a run starts or ends (text.RunStartLine, text.RunEndLine).
var runLine = regexp.MustCompile(`^\S+#\d+ (started|ended): `)

// relay copies a beat's output to the log, and its run lines to the
// person, with the time.
func (b *beater) relay(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(b.out, line)
		if runLine.MatchString(line) {
			fmt.Fprintf(b.say, "%s %s\n", time.Now().Format("15:04:05"), line)
		}
	}
	io.Copy(io.Discard, r)
}

// noteSkips tells the person why the last beat skipped tickets, once per
// change: a reason already said is not said again every beat.
func (b *beater) noteSkips() {
	st := heartbeat.ReadState(b.dir.Path("heartbeat.json"))
	if st.LastBeat == nil || st.LastBeat.Skipped {
		return
	}
	cur := map[string]string{}
	for _, r := range st.LastBeat.Runs {
		if r.Skipped != "" {
			cur[r.Ticket] = r.Skipped
		}
	}
	for _, line := range skipChanges(b.skips, cur) {
		fmt.Fprintf(b.say, "%s %s\n", time.Now().Format("15:04:05"), line)
	}
	b.skips = cur
}

// skipChanges lists, by ticket, the skip reasons in cur that prev did not
// have, and the tickets prev skipped that cur does not.
func skipChanges(prev, cur map[string]string) []string {
	var out []string
	for _, t := range slices.Sorted(maps.Keys(cur)) {
		if prev[t] != cur[t] {
			out = append(out, termsafe.Line(t+" not run: "+cur[t]))
		}
	}
	for _, t := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := cur[t]; !ok {
			out = append(out, termsafe.Line(t+" is no longer skipped"))
		}
	}
	return out
}

// lockedWriter serialises writes from the beats and the server.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
