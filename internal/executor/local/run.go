package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// Exec implements executor.Executor.
func (l *Executor) Exec(ctx context.Context, argv []string, opts executor.RunOptions) (executor.Exit, error) {
	if len(argv) == 0 {
		return executor.Exit{}, errors.New("exec: empty command")
	}
	return l.run(ctx, argv, opts)
}

// Shell implements executor.Executor.
func (l *Executor) Shell(ctx context.Context, script string, opts executor.RunOptions) (executor.Exit, error) {
	return l.run(ctx, append(append([]string(nil), l.shell...), script), opts)
}

// run starts argv in its own process group with the clean environment,
// copies its output as it arrives, and kills the whole group when the
// command ends, times out or its context is canceled, so no background
// child outlives the call.
func (l *Executor) run(ctx context.Context, argv []string, opts executor.RunOptions) (executor.Exit, error) {
	rel, err := l.rel(opts.Dir)
	if opts.Dir == "" {
		rel, err = ".", nil
	}
	if err != nil {
		return executor.Exit{}, l.pathErr("run", l.display(opts.Dir), err)
	}
	dir, err := l.hostPath(rel)
	if err != nil {
		return executor.Exit{}, l.pathErr("run", rel, err)
	}
	env := append(append(executor.CleanEnv(os.Environ(), l.env), l.marks...), opts.Env...)
	name, err := lookPath(argv[0])
	if err != nil {
		return executor.Exit{}, err
	}
	cmd := exec.Command(name, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = opts.Stdin
	cmd.SysProcAttr = procAttr()

	out := opts.Output
	if out == nil {
		out = io.Discard
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return executor.Exit{}, fmt.Errorf("run %s: %w", argv[0], err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	var er, ew *os.File
	if opts.Stderr != nil {
		if er, ew, err = os.Pipe(); err != nil {
			pr.Close()
			pw.Close()
			return executor.Exit{}, fmt.Errorf("run %s: %w", argv[0], err)
		}
		cmd.Stderr = ew
	}

	start := time.Now()
	waited := make(chan error, 1)
	err = startLocked(cmd, waited)
	pw.Close()
	if ew != nil {
		ew.Close()
	}
	if err != nil {
		pr.Close()
		if er != nil {
			er.Close()
		}
		return executor.Exit{}, fmt.Errorf("run %s: %w", argv[0], cleanErr(err))
	}
	pid := cmd.Process.Pid

	copied := make(chan struct{}, 2)
	pending := 1
	go executor.CopyOutput(out, pr, copied)
	if er != nil {
		pending++
		go executor.CopyOutput(opts.Stderr, er, copied)
	}

	var timeout <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	exit := executor.Exit{PID: pid}
	select {
	case <-waited:
		// Ctrl-C on the runtime's terminal reaches a command that had not
		// yet left the terminal's process group when it was pressed, at the
		// same moment the runtime aborts: the command then ends by SIGINT
		// just before ctx is cancelled. That is the abort, not a failure.
		if interrupted(cmd.ProcessState) {
			select {
			case <-ctx.Done():
				exit.Canceled = true
			case <-time.After(interruptGrace):
			}
		}
	case <-timeout:
		exit.TimedOut = true
		killGroup(pid)
		<-waited
	case <-ctx.Done():
		exit.Canceled = true
		killGroup(pid)
		<-waited
	}
	exit.Duration = time.Since(start)
	// Whatever the shell left running in the background goes too.
	killGroup(pid)
	executor.DrainOutput(copied, pending, pr, er)
	exit.Code = exitCode(cmd.ProcessState)
	return exit, nil
}

// startLocked starts cmd from a goroutine locked to its OS thread until
// the command has been waited for, then sends Wait's result on waited. On
// Linux the parent-death signal fires when the thread that started the
// child exits, not the process: Go ends a thread only when a goroutine
// locked to it returns still locked, and holding the lock keeps any other
// goroutine from doing so on this one while the command runs.
func startLocked(cmd *exec.Cmd, waited chan<- error) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waited <- cmd.Wait()
	}()
	return <-started
}

// interruptGrace is how long a command that died of SIGINT waits for the
// runtime's own abort before it counts as a command that failed.
const interruptGrace = 500 * time.Millisecond

// interrupted reports whether the process ended by SIGINT.
func interrupted(ps *os.ProcessState) bool {
	if ps == nil {
		return false
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGINT
}

func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// lookPath finds a program on PATH. PATH passes to commands unchanged, so
// the parent's PATH is the command's.
func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("run %s: %w", name, executor.ErrCommandNotFound)
	}
	return p, nil
}
