//go:build unix

package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// OpenCode works a ticket: its bash tool writes a file, its board tool
// (over the run's MCP server) comments, and the run completes with the
// model's last words; the key reaches neither the commands nor the
// transcript. The board server answers 15 s after OpenCode started
// (slowBoard, as in TestEnginesWaitForASlowBoardServer): OpenCode waits
// for it, or its board tool would be missing.
func TestOpenCodeRunsATicket(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		call("toolu_1", "bash", `{"command":"echo DONE > feature.txt; env","description":"write"}`),
		call("toolu_2", "bonsai_ticket_comment", `{"body":"wrote feature.txt"}`),
		text("All done."))
	f := newFixture(t, engine.OpenCode{}, "opencode", "anthropic/claude-sonnet-4-5",
		map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": "sk-ant-secret-test-key"})
	// OpenCode's case of TestEnginesWaitForASlowBoardServer: an OpenCode
	// run costs about 6 s of CPU, so this one run checks both.
	f.job.Workspace.Exec = &slowBoard{Executor: f.job.Workspace.Exec, t: t, delay: 15 * time.Second}
	out, err := f.runner.RunAgent(context.Background(), f.job)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.transcript(t) {
		if e.Message != nil {
			t.Logf("%s %s %s", e.Message.Role, e.Message.ToolName, cut(e.Message.Text()))
		}
	}
	for _, r := range srv.Requests() {
		t.Logf("%s %s", r.Path, cut(string(r.Raw)))
	}
	if out.Status != board.RunCompleted || out.Summary != "All done." {
		t.Fatalf("outcome %+v", out)
	}
	if b, err := os.ReadFile(filepath.Join(f.root, "feature.txt")); err != nil || strings.TrimSpace(string(b)) != "DONE" {
		t.Errorf("feature.txt = %q, %v", b, err)
	}
	if len(f.calls) != 1 || !strings.Contains(f.calls[0], "wrote feature.txt") {
		t.Errorf("board tool calls %q: the agent started without its board tools?", f.calls)
	}
	for _, e := range f.transcript(t) {
		if e.Message != nil && strings.Contains(e.Message.Text(), "sk-ant-secret-test-key") {
			t.Errorf("the key reached the transcript")
		}
	}
}
