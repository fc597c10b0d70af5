package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

func TestCodexRunsATicket(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		call("call_1", "exec_command", `{"cmd":"echo DONE > feature.txt; env"}`),
		call("call_2", "mcp__bonsai::ticket_comment", `{"body":"wrote feature.txt"}`),
		text("All done."))
	f := newFixture(t, engine.Codex{}, "codex", "openai/gpt-5-codex",
		map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "sk-openai-secret-test-key"})
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
		if strings.Contains(string(r.Raw), `"type":"web_search"`) {
			t.Errorf("codex offered the hosted web search")
		}
	}
	if out.Status != board.RunCompleted || out.Summary != "All done." {
		t.Fatalf("outcome %+v", out)
	}
	if b, err := os.ReadFile(filepath.Join(f.root, "feature.txt")); err != nil || strings.TrimSpace(string(b)) != "DONE" {
		t.Errorf("feature.txt = %q, %v", b, err)
	}
	if len(f.calls) != 1 || !strings.Contains(f.calls[0], "wrote feature.txt") {
		t.Errorf("board tool calls %q", f.calls)
	}
	for _, e := range f.transcript(t) {
		if e.Message != nil && (strings.Contains(e.Message.Text(), "sk-openai-secret-test-key") || strings.Contains(e.Message.Text(), "BONSAI_")) {
			t.Errorf("the key or a run token reached the model's commands:\n%s", e.Message.Text())
		}
	}
}
