//go:build !windows

package heartbeat_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestBeat_StopKillsTheRunningTool stops a run from outside while its
// agent runs a long command: the command's process is killed, the run
// finishes as stopped with who asked, and the guard does not judge it.
func TestBeat_StopKillsTheRunningTool(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.ControlPoll = 50 * time.Millisecond
	e.project("demo", nil)
	tk := e.ticket("demo", "Slow work", board.InProgress)
	pidFile := filepath.Join(t.TempDir(), "pid")
	var asked atomic.Int64 // unix nanoseconds of the stop request
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		go func() {
			for ctx.Err() == nil {
				if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
					asked.Store(time.Now().UnixNano())
					if _, err := e.db.RequestStop(context.Background(), tk.Ref(), "ana"); err != nil {
						t.Errorf("RequestStop: %v", err)
					}
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		var out strings.Builder
		_, err := job.Workspace.Exec.Shell(ctx, "sh -c 'echo $$ > "+pidFile+"; exec sleep 300'", executor.RunOptions{Output: &out})
		if ctx.Err() == nil {
			t.Errorf("the command ended before the run was stopped: %v\n%s", err, out.String())
		}
		return heartbeat.Outcome{Status: board.RunInterrupted, Usage: board.Usage{OutputTokens: 10}}, nil
	}
	rep := e.beat()
	t.Logf("stop took %s from the request to the end of the beat's run", time.Since(time.Unix(0, asked.Load())).Round(time.Millisecond))
	if len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunStopped {
		t.Fatalf("runs = %+v, want one stopped", rep.Runs)
	}
	runs := e.runs(tk.Ref())
	if runs[0].Status != board.RunStopped || !strings.Contains(runs[0].Error, "stopped by ana") {
		t.Errorf("run = %s %q, want stopped by ana", runs[0].Status, runs[0].Error)
	}
	if runs[0].Progress != board.ProgressNotJudged {
		t.Errorf("a stopped run was judged: progress %q", runs[0].Progress)
	}
	b, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the tool's process %d is still there after the stop (kill -0: %v)", pid, err)
	}
	// A stopped run does not block the ticket: the next beat resumes it.
	e.runner.run = nil
	if rep := e.beat(); len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunCompleted {
		t.Errorf("the beat after a stop = %+v, want the ticket run again", rep.Runs)
	}
}
