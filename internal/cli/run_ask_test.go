//go:build !windows

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

func bashTurn(id, command string) llmtest.ServerTurn {
	return llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{
		llm.ToolCall(id, "bash", []byte(`{"command":"`+command+`"}`))}}}
}

// TestRun_InteractiveAsks drives `bonsai run --permission-mode ask` on a
// pseudo-terminal: each held command is asked in the terminal; n refuses
// it (the model is told the user refused), y runs it once, a runs it and
// every later identical command without asking.
func TestRun_InteractiveAsks(t *testing.T) {
	srv := llmtest.NewServer(t,
		bashTurn("b1", "mkdir one"),
		bashTurn("b2", "mkdir two"),
		bashTurn("b3", "touch three"),
		bashTurn("b4", "touch three"),
		llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("Finished.")}}},
	)
	work, tty, out, exited := startInteractive(t, srv.URL, "--permission-mode", "ask")

	const choices = "Run it? [y] once, [a] always this session, [n] no: "
	pos := out.waitFor(t, 0, "> ")
	tty.WriteString("make things\r")
	pos = out.waitFor(t, pos, "(ask-mode")
	pos = out.waitFor(t, pos, "$ mkdir one")
	pos = out.waitFor(t, pos, choices)
	tty.WriteString("maybe\r")
	pos = out.waitFor(t, pos, "answer y (run it once), a (always, for this session) or n (refuse)")
	pos = out.waitFor(t, pos, choices)
	tty.WriteString("n\r")
	pos = out.waitFor(t, pos, "$ mkdir two")
	pos = out.waitFor(t, pos, choices)
	tty.WriteString("y\r")
	pos = out.waitFor(t, pos, "$ touch three")
	pos = out.waitFor(t, pos, choices)
	tty.WriteString("a\r")
	pos = out.waitFor(t, pos, "Finished.")
	pos = out.waitFor(t, pos, "> ")
	tty.WriteString("/exit\r")
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v\n%s", err, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("did not exit after /exit:\n%s", out.String())
	}

	if n := strings.Count(out.String(), "$ touch three"); n != 1 {
		t.Errorf("touch three was asked %d times, want once (a allows it for the session):\n%s", n, out.String())
	}
	for name, want := range map[string]bool{"one": false, "two": true, "three": true} {
		if _, err := os.Stat(filepath.Join(work, name)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", name, err == nil, want)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	if raw := string(reqs[1].Raw); !strings.Contains(raw, "Command refused: the user refused (ask-mode") {
		t.Errorf("the model was not told the user refused: %s", raw)
	}
}
