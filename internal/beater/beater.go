package beater

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// shutdownGrace is how long a beat gets, after an interrupt, to finish
// writing its results.
const shutdownGrace = 30 * time.Second

// Beater fires `bonsai heartbeat` every heartbeat.intervalSec.
type Beater struct {
	// Exe is the bonsai binary; Dir the data directory the beats use.
	Exe string
	Dir config.Dir
	// Log receives a record per beat; Out the beats' own output.
	Log *slog.Logger
	Out io.Writer
	// Say is the person's terminal: a line per run start and end, and
	// each skip reason when it changes. Writes to it must be safe from
	// several goroutines ([SyncWriter]).
	Say io.Writer
	// skips are the skip reasons of the last beat, by ticket.
	skips map[string]string
}

// Run fires a beat at once, then one per interval, until ctx is done. The
// interval is read from config.json before each wait, so a change on the
// settings page applies from the next beat.
func (b *Beater) Run(ctx context.Context) {
	for {
		b.beat(ctx)
		t := time.NewTimer(b.Interval())
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Interval is heartbeat.intervalSec as config.json says now (its default
// when the file does not load).
func (b *Beater) Interval() time.Duration {
	c, err := config.Load(b.Dir.ConfigFile())
	if err != nil {
		b.Log.Warn("read config", "err", err)
		c = config.Default()
	}
	return time.Duration(c.Heartbeat.IntervalSec) * time.Second
}

// beat runs one heartbeat process and logs how it ended. On shutdown the
// child gets an interrupt and 30 seconds to finish writing its results.
func (b *Beater) beat(ctx context.Context) {
	start := time.Now()
	cmd := exec.CommandContext(ctx, b.Exe, "heartbeat")
	cmd.Stdout, cmd.Stderr = b.Out, b.Out
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = shutdownGrace
	err := b.runWithEvents(cmd)
	if err != nil {
		b.Log.Error("heartbeat failed", "err", err, "ms", time.Since(start).Milliseconds())
		return
	}
	b.noteSkips()
	b.Log.Info("heartbeat", "ms", time.Since(start).Milliseconds())
}

// runWithEvents runs cmd with the write end of an events pipe, saying
// each run's start and end as its Event arrives.
func (b *Beater) runWithEvents(cmd *exec.Cmd) error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("make the events pipe: %w", err)
	}
	defer pr.Close()
	cmd.Env = append(os.Environ(), "BONSAI_DATA_DIR="+string(b.Dir), EventsEnv+"="+passFile(cmd, pw))
	err = cmd.Start()
	pw.Close() // the child holds its own copy: the pipe ends when it exits
	if err != nil {
		return err
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		readEvents(pr, b.say, func(line string, err error) {
			b.Log.Warn("a beat's event is not JSON", "line", line, "err", err)
		})
	}()
	err = cmd.Wait()
	<-read
	return err
}

// say tells the person of a run that started or ended, with the time.
func (b *Beater) say(e Event) {
	var line string
	switch e.Kind {
	case RunStarted:
		line = text.RunStartLine(e.Progress)
	case RunEnded:
		if e.Progress.End == nil {
			return
		}
		line = text.RunEndLine(e.Progress)
	default:
		return
	}
	fmt.Fprintf(b.Say, "%s %s\n", time.Now().Format("15:04:05"), line)
}

// SyncWriter serialises writes from the beats and the server.
type SyncWriter struct {
	mu sync.Mutex
	W  io.Writer
}

// Write writes p to W, one write at a time.
func (l *SyncWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(p)
}

// readState reads heartbeat.json of the data directory.
func (b *Beater) readState() *heartbeat.State {
	return heartbeat.ReadState(b.Dir.Path("heartbeat.json"))
}
