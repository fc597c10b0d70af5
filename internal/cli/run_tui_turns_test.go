//go:build !windows

package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// bashQuoted is a bash call whose command is quoted as JSON.
func bashQuoted(id, command string) llmtest.ServerTurn {
	return llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{
		llm.ToolCall(id, "bash", []byte(`{"command":`+quoteJSON(command)+`}`))}}}
}

func textServerTurn(s string) llmtest.ServerTurn {
	return llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text(s)}}}
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// TestRunTUI_EscAbortsAndSteering: Esc ends a running command at once,
// and a message typed while a command runs reaches the model before its
// next request.
func TestRunTUI_EscAbortsAndSteering(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		bashTurn("b1", "sleep 300"),
		textServerTurn("Stopped."),
		bashQuoted("b2", "while [ ! -f go ]; do sleep 0.05; done; echo went"),
		textServerTurn("Steered."),
	)
	work, s, _ := startTUI(t, srv.URL, "--no-session")
	s.waitFor("Ask anything")
	s.key("run something slow\r")
	s.waitFor("○ bash sleep 300")
	s.key("\x1b") // Esc; the abort is shown by the five-minute sleep ending
	s.waitFor("aborted")

	s.key("stopped?\r")
	s.waitFor("Stopped.")
	s.key("wait for go\r")
	s.waitFor("○ bash while")
	s.key("also say steered\r")
	// "wait for go" may itself have been steered into the turn that
	// answered "Stopped." (still ending when it was typed), which put the
	// same notice on the screen.
	s.waitForAfter("also say steered", "steering: delivered before the next model call")
	if err := os.WriteFile(filepath.Join(work, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitFor("Steered.")
	reqs := srv.Requests()
	if len(reqs) != 4 {
		var b strings.Builder
		for i, r := range reqs {
			fmt.Fprintf(&b, "request %d: …%s\n", i+1, tail(string(r.Raw), 600))
		}
		t.Fatalf("%d requests, want 4:\n%s", len(reqs), b.String())
	}
	if raw := string(reqs[3].Raw); !strings.Contains(raw, "also say steered") || !strings.Contains(raw, "went") {
		t.Errorf("the request after the command lacks the steering message or the result: %s", raw)
	}
}

// TestRunTUI_ApprovalInline: with --permission-mode ask a held command
// is asked above the editor (golden), and y runs it once.
func TestRunTUI_ApprovalInline(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, bashTurn("b1", "touch made-by-agent"), textServerTurn("Made it."))
	work, s, _ := startTUI(t, srv.URL, "--no-session", "--permission-mode", "ask")
	s.waitFor("Ask anything")
	s.key("make a file\r")
	s.golden("approve", "Run it? [y] once")
	s.key("y")
	s.waitFor("Made it.")
	if _, err := os.Stat(filepath.Join(work, "made-by-agent")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
}

// TestRunTUI_LargeToolOutput: a command printing 10 MB leaves the
// interface responsive: its result folds to one line and the next
// command answers.
func TestRunTUI_LargeToolOutput(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, bashQuoted("b1", "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 10000000"), textServerTurn("Big."))
	_, s, _ := startTUI(t, srv.URL, "--no-session")
	s.waitFor("Ask anything")
	s.key("print a lot\r")
	s.waitFor("Big.")
	s.key("\x0f") // expanded: the tail of the output, not 10 MB of it
	s.waitFor("0123456789abcdefghijklmnopqrstuvwxyz")
	s.key("/cost\r")
	s.waitFor("session:")
}

// TestRunTUI_DegradesToTheLinePrompt: with stdout not a terminal, or
// TERM=dumb, `bonsai run` keeps the line prompt: no alternate screen.
func TestRunTUI_DegradesToTheLinePrompt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		term     string
		pipedOut bool
	}{{"stdout piped", "xterm-256color", true}, {"TERM=dumb", "dumb", false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, textServerTurn("Line mode."))
			dir := t.TempDir()
			cmd := exec.Command("bonsai", "run", "--no-session", "--cwd", dir)
			cmd.Env = append(os.Environ(), "BONSAI_DATA_DIR="+filepath.Join(dir, "data"), "HOME="+dir,
				"ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=test-key", "TERM="+c.term)
			piped := &ptyOutput{}
			if c.pipedOut {
				cmd.Stdout = piped
			}
			tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
			if err != nil {
				t.Fatal(err)
			}
			defer tty.Close()
			out := &ptyOutput{}
			go func() { _, _ = copyAll(out, tty) }()
			shown := out
			if c.pipedOut {
				shown = piped
			}
			tty.WriteString("hello\r")
			shown.waitFor(t, 0, "Line mode.")
			tty.Write([]byte{4}) // Ctrl-D: end of input
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("exit: %v", err)
				}
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("did not exit:\n%s%s", piped.String(), out.String())
			}
			all := piped.String() + out.String()
			if strings.Contains(all, "\x1b[?1049h") || !strings.Contains(all, "Line mode.") {
				t.Errorf("not the line prompt:\n%q", all)
			}
		})
	}
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
