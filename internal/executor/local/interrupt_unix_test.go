//go:build unix

package local_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// TestLocal_TerminalInterruptIsTheAbort: a Ctrl-C on the runtime's
// terminal can reach a command as SIGINT just before the runtime aborts
// the run. A command that dies of SIGINT and whose context is cancelled
// right after counts as cancelled; one that dies of SIGINT on its own is a
// command that exited 130.
func TestLocal_TerminalInterruptIsTheAbort(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ex := openLocal(t, root)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel only once the shell is gone: the abort comes after the
		// interrupt, as when the signal reaches the command first.
		pid := waitPID(filepath.Join(root, "pid"))
		for pid > 0 && syscall.Kill(pid, 0) == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	x, err := ex.Shell(ctx, "echo $$ > pid; kill -INT $$; sleep 5", executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !x.Canceled {
		t.Errorf("a command interrupted as the run aborts: %+v, want Canceled", x)
	}

	x, err = ex.Shell(context.Background(), "kill -INT $$; sleep 5", executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if x.Canceled || x.Code != 130 {
		t.Errorf("a command that interrupted itself: %+v, want code 130, not canceled", x)
	}
}

// waitPID polls for a pid file and returns the pid in it.
func waitPID(path string) int {
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return -1
		}
		time.Sleep(time.Millisecond)
	}
}
