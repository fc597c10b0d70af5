//go:build !windows

package cli_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// ptyOutput collects what the program writes to its terminal.
type ptyOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *ptyOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *ptyOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor waits until the output after position from contains s and
// returns the position after it.
func (o *ptyOutput) waitFor(t *testing.T, from int, s string) int {
	t.Helper()
	// A deadline for a failure, not a timing check: generous, so that a
	// busy machine is never mistaken for a broken terminal.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		out := o.String()
		if i := strings.Index(out[from:], s); i >= 0 {
			return from + i + len(s)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %q in the terminal output after byte %d:\n%s", s, from, o.String())
	return 0
}

// TestRun_Interactive drives `bonsai run` on a pseudo-terminal: a prompt
// streams its answer, Ctrl-C aborts a running command, and a second
// Ctrl-C exits.
func TestRun_Interactive(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("Hello from the model.")}}},
		llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{
			llm.ToolCall("b1", "bash", []byte(`{"command":"sleep 300"}`))}}},
		llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("Still here.")}}},
	)
	_, tty, out, exited := startInteractive(t, srv.URL)

	pos := out.waitFor(t, 0, "> ")
	tty.WriteString("say hello\r")
	pos = out.waitFor(t, pos, "Hello from the model.")
	pos = out.waitFor(t, pos, "> ")

	tty.WriteString("run something slow\r")
	pos = out.waitFor(t, pos, "● bash sleep 300")
	// The abort ends the command: "(aborted)" comes within waitFor's
	// deadline, long before the five minutes of the sleep.
	pressed := pressCtrlC(tty, time.Time{})
	pos = out.waitFor(t, pos, "(aborted)")
	pos = out.waitFor(t, pos, "> ")

	// The session goes on after an abort.
	tty.WriteString("are you there?\r")
	pos = out.waitFor(t, pos, "Still here.")
	pos = out.waitFor(t, pos, "> ")

	pressed = pressCtrlC(tty, pressed)
	pos = out.waitFor(t, pos, "press Ctrl-C again to exit")
	pressCtrlC(tty, pressed)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v\n%s", err, out.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("did not exit after the second Ctrl-C:\n%s", out.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if raw := string(reqs[2].Raw); !strings.Contains(raw, "are you there?") || !strings.Contains(raw, "Hello from the model.") {
		t.Errorf("third request lacks the conversation: %s", raw)
	}
}

func copyAll(dst *ptyOutput, src *os.File) (int64, error) {
	buf := make([]byte, 4096)
	var n int64
	for {
		k, err := src.Read(buf)
		if k > 0 {
			dst.Write(buf[:k])
			n += int64(k)
		}
		if err != nil {
			return n, err
		}
	}
}

// startInteractive starts `bonsai run --cwd <work> args…` on a
// pseudo-terminal against the fake model at url, in a data directory and
// home of its own. It returns the work directory, the terminal, its output,
// and a channel that
// delivers Wait's error once; the test's cleanup kills a process still
// running and waits for it, without touching cmd from two goroutines.
func startInteractive(t *testing.T, url string, args ...string) (string, *os.File, *ptyOutput, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bonsai", append([]string{"run", "--cwd", work}, args...)...)
	cmd.Env = append(os.Environ(),
		"BONSAI_DATA_DIR="+filepath.Join(dir, "data"), "HOME="+dir,
		"ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=test-key", "TERM=dumb")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	out := &ptyOutput{}
	go func() { _, _ = copyAll(out, tty) }()
	exited := make(chan error, 1)
	waited := make(chan struct{})
	go func() { exited <- cmd.Wait(); close(waited) }()
	t.Cleanup(func() {
		select {
		case <-waited:
		default:
			cmd.Process.Kill()
			<-waited
		}
	})
	return work, tty, out, exited
}
