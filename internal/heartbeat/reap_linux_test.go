//go:build linux

package heartbeat_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// serverExecutor is a local executor that, like the bubblewrap sandbox,
// keeps a process of its own alive from its first command until Close,
// carrying the run's mark as every process it starts does.
type serverExecutor struct {
	*local.Executor
	mu     sync.Mutex
	marks  []string
	server *exec.Cmd
}

func (s *serverExecutor) Mark(kv string) {
	s.mu.Lock()
	s.marks = append(s.marks, kv)
	s.mu.Unlock()
	s.Executor.Mark(kv)
}

func (s *serverExecutor) Shell(ctx context.Context, script string, o executor.RunOptions) (executor.Exit, error) {
	s.mu.Lock()
	if s.server == nil {
		s.server = exec.Command("sleep", "600")
		s.server.Env = append(os.Environ(), s.marks...)
		s.server.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := s.server.Start(); err != nil {
			s.mu.Unlock()
			return executor.Exit{}, err
		}
	}
	s.mu.Unlock()
	return s.Executor.Shell(ctx, script, o)
}

func (s *serverExecutor) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.server != nil {
		s.server.Process.Kill()
		s.server.Wait()
		s.server = nil
	}
	return s.Executor.Close()
}

// TestBeat_NormalRunLeavesNothingToReap: a run whose commands left
// nothing running logs no "killed processes a run left": the executor's
// own long-lived process (the sandbox's command server) ends with the
// executor before the beat looks for leftovers. A process a command did
// leave behind is still killed and reported.
func TestBeat_NormalRunLeavesNothingToReap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var log bytes.Buffer
	var logMu sync.Mutex
	e.opts.Logger = slog.New(slog.NewTextHandler(syncWriter{&log, &logMu}, nil))
	ws, err := workspace.New(workspace.Options{
		Projects: filepath.Join(e.data, "projects"), Worktrees: filepath.Join(e.data, "worktrees"),
		Open: func(root string) (executor.Executor, error) {
			l, err := local.New(root, local.Options{})
			if err != nil {
				return nil, err
			}
			return &serverExecutor{Executor: l}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Workspaces = ws
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.InProgress)
	leave := false
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		shell(t, ctx, job, "true")
		if leave {
			// Out of the command's process group before the command
			// ends: the ready file is written in the new session.
			ready := filepath.Join(t.TempDir(), "ready")
			shell(t, ctx, job, "setsid sh -c 'touch "+ready+"; exec sleep 600' >/dev/null 2>&1 </dev/null & "+
				"while [ ! -e "+ready+" ]; do sleep 0.01; done")
		}
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	logMu.Lock()
	got := log.String()
	logMu.Unlock()
	if strings.Contains(got, "killed processes a run left") {
		t.Fatalf("a normal run's beat reaped processes:\n%s", got)
	}
	if rs := e.runs(tk.Ref()); len(rs) != 1 || rs[0].Status != board.RunCompleted {
		t.Fatalf("runs = %+v", rs)
	}

	// A real leftover is still found and reported.
	leave = true
	e.beat()
	logMu.Lock()
	got = log.String()
	logMu.Unlock()
	if !strings.Contains(got, "killed processes a run left") || !strings.Contains(got, "count=1") {
		t.Fatalf("the leftover of a command was not reaped, or not alone:\n%s", got)
	}
}

type syncWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// TestBeat_SandboxedRunEndsWithoutAScan: a run in the bubblewrap sandbox
// that left a process running in a session of its own ends with nothing
// left, and without a scan of the process table: the sandbox's PID
// namespace ends with its executor (executor.Contained), taking the
// process along.
func TestBeat_SandboxedRunEndsWithoutAScan(t *testing.T) {
	if err := sandbox.Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	t.Parallel()
	e := newEnv(t)
	home := filepath.Join(t.TempDir(), "home")
	ws, err := workspace.New(workspace.Options{
		Projects: filepath.Join(e.data, "projects"), Worktrees: filepath.Join(e.data, "worktrees"),
		Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
		OpenAgent: func(_ board.Project, root, clone string) (executor.Executor, error) {
			return sandbox.New(root, sandbox.Options{Home: home, GitDir: filepath.Join(clone, ".git")})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Workspaces = ws
	var scans atomic.Int32
	e.opts.Reap = func(mark string) (int, error) {
		scans.Add(1)
		return local.KillMarked(mark)
	}
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.InProgress)
	tok := "bonsai-contained-" + filepath.Base(e.data)
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		if !executor.ContainsProcesses(job.Workspace.Exec) {
			t.Error("the sandbox's executor does not say it contains its processes")
		}
		shell(t, ctx, job, "setsid sh -c 'touch .up; sleep 300; : "+tok+"' </dev/null >/dev/null 2>&1 & "+
			"while [ ! -e .up ]; do sleep 0.01; done")
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	if rs := e.runs(tk.Ref()); len(rs) != 1 || rs[0].Status != board.RunCompleted {
		t.Fatalf("runs = %+v", rs)
	}
	if n := scans.Load(); n != 0 {
		t.Errorf("the beat scanned the process table %d times after a sandboxed run", n)
	}
	// The kernel ends the namespace's processes once its PID 1 is gone:
	// wait for it generously, a loaded machine schedules it late.
	for deadline := time.Now().Add(30 * time.Second); ; {
		pids := cmdlineHolds(tok)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("processes %v the run left outlived its sandbox", pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cmdlineHolds lists the processes whose command line holds tok.
func cmdlineHolds(tok string) []int {
	ds, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range ds {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if b, _ := os.ReadFile("/proc/" + d.Name() + "/cmdline"); bytes.Contains(b, []byte(tok)) {
			pids = append(pids, pid)
		}
	}
	return pids
}
