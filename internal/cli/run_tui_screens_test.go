//go:build !windows

package cli_test

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// TestRunTUI_Screens drives the full-screen interface of `bonsai run` on
// an 80×24 terminal: the first frame, a streamed answer, a tool call
// (folded, then expanded), /help and /cost, each checked against its
// golden screen, and the screen after a resize; then Ctrl-C twice quits.
func TestRunTUI_Screens(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{
			llm.Text("Hello from the **model**.\n\n- one\n- two `code`")},
			Usage: &llm.Usage{Input: 1200, Output: 30}}},
		llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{
			llm.ToolCall("b1", "bash", []byte(`{"command":"printf 'line %s\\n' 1 2 3"}`))}}},
		llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("Done.")}}},
	)
	_, s, exited := startTUI(t, srv.URL, "--no-session")
	s.golden("frame", "Ask anything")

	s.key("say hello\r")
	s.golden("answer", "two code")

	s.key("run it\r")
	s.golden("tool", "Done.")
	s.key("\x0f") // Ctrl-O expands the tool calls
	s.golden("tool-expanded", "line 3")
	s.key("\x0f")

	s.key("/help\r")
	s.golden("help", "Ctrl-T shows the thinking")
	s.key("/cost\r")
	s.golden("cost", "session:")
	s.resize(60, 16)
	s.golden("resized", "session:")

	s.key("\x03")
	s.waitFor("press Ctrl-C again to quit")
	s.key("\x03")
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v\n%s", err, s.text())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("did not exit after the second Ctrl-C:\n%s", s.text())
	}
}
