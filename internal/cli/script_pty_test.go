//go:build !windows

package cli_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// ptyEnv are the variables a pty command takes from the script; the rest of
// its environment is the test process's.
var ptyEnv = []string{"PATH", "HOME", "BONSAI_DATA_DIR", "BONSAI_USER", "TZ",
	"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OLLAMA_BASE_URL"}

// cmdPty runs a command on a pseudo-terminal, as a person at a terminal
// would, following a steps file, and writes everything the terminal showed
// to $WORK/pty.out for grep: pty <steps-file> <command> [args...].
//
// The terminal is TERM=dumb unless the script sets PTY_TERM.
//
// Steps, one per line: "wait TEXT" (until TEXT appears after the previous
// match, at most 15 s), "noecho" (until the terminal no longer echoes
// what is typed, at most 15 s: a prompt for a secret shows before the
// command turns echo off), "send TEXT" (typed, then Enter), "ctrl-c", and
// "exit" (until the command exits, at most 15 s; it must exit 0).
func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: pty <steps-file> <command> [args...]")
	}
	steps, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	path, err := lookPath(args[1], ts.Getenv("PATH"))
	ts.Check(err)
	cmd := exec.Command(path, args[2:]...)
	cmd.Dir = ts.Getenv("WORK")
	term := "dumb"
	if t := ts.Getenv("PTY_TERM"); t != "" {
		term = t // a script that tests ANSI output sets PTY_TERM=xterm
	}
	cmd.Env = append(os.Environ(), "TERM="+term)
	for _, k := range ptyEnv {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	ts.Check(err)
	defer tty.Close()
	out := &ptyOutput{}
	go func() { _, _ = copyAll(out, tty) }()
	// exited delivers Wait's error once; waited closes after it, so the
	// deferred kill never reads cmd while Wait writes it.
	exited := make(chan error, 1)
	waited := make(chan struct{})
	go func() { exited <- cmd.Wait(); close(waited) }()
	defer func() {
		select {
		case <-waited:
		default:
			cmd.Process.Kill()
			<-waited
		}
		ts.Check(os.WriteFile(filepath.Join(ts.Getenv("WORK"), "pty.out"), []byte(out.String()), 0o644))
	}()

	pos := 0
	var lastCtrlC time.Time
	sc := bufio.NewScanner(strings.NewReader(string(steps)))
	for sc.Scan() {
		step, arg, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		switch step {
		case "", "#":
		case "wait":
			// a minute: the text comes as soon as it is ready; only a
			// busy machine (two other CPU-bound jobs) takes long
			deadline := time.Now().Add(time.Minute)
			for {
				s := out.String()
				if i := strings.Index(s[pos:], arg); i >= 0 {
					pos += i + len(arg)
					break
				}
				if time.Now().After(deadline) {
					ts.Fatalf("pty: no %q on the terminal after byte %d:\n%s", arg, pos, s)
				}
				time.Sleep(10 * time.Millisecond)
			}
		case "noecho":
			waitNoEcho(ts, tty, out)
		case "send":
			_, err := tty.WriteString(arg + "\r")
			ts.Check(err)
		case "ctrl-c":
			lastCtrlC = pressCtrlC(tty, lastCtrlC)
		case "exit":
			select {
			case err := <-exited:
				if err != nil {
					ts.Fatalf("pty: %s: %v\n%s", args[1], err, out.String())
				}
			case <-time.After(15 * time.Second):
				ts.Fatalf("pty: %s did not exit:\n%s", args[1], out.String())
			}
		default:
			ts.Fatalf("pty: unknown step %q", step)
		}
	}
}

// waitNoEcho waits until the terminal tty's other end has echo off.
func waitNoEcho(ts *testscript.TestScript, tty *os.File, out *ptyOutput) {
	deadline := time.Now().Add(15 * time.Second)
	for {
		t, err := unix.IoctlGetTermios(int(tty.Fd()), getTermios)
		ts.Check(err)
		if t.Lflag&unix.ECHO == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("pty: the terminal still echoes input:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lookPath finds name in a PATH list.
func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return exec.LookPath(name)
}

// pressCtrlC sends Ctrl-C to tty at least 300 ms after the last one (at
// last), as a person's second press comes: `bonsai run` counts an
// interrupt sooner than runui's samePress as the same press. It returns
// when it was sent.
func pressCtrlC(tty *os.File, last time.Time) time.Time {
	time.Sleep(time.Until(last.Add(300 * time.Millisecond)))
	tty.Write([]byte{3})
	return time.Now()
}
