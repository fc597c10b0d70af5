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

func TestOpenCodeRunsATicket(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		call("toolu_1", "bash", `{"command":"echo DONE > feature.txt; env","description":"write"}`),
		call("toolu_2", "bonsai_ticket_comment", `{"body":"wrote feature.txt"}`),
		text("All done."))
	f := newFixture(t, engine.OpenCode{}, "opencode", "anthropic/claude-sonnet-4-5",
		map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": "sk-ant-secret-test-key"})
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
		t.Errorf("board tool calls %q", f.calls)
	}
	for _, e := range f.transcript(t) {
		if e.Message != nil && strings.Contains(e.Message.Text(), "sk-ant-secret-test-key") {
			t.Errorf("the key reached the transcript")
		}
	}
}

// OpenCode speaks Chat Completions too, through the provider SDK it
// bundles (no download).
func TestOpenCodeChatCompletions(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, text("Over Chat Completions."))
	f := newFixture(t, engine.OpenCode{}, "opencode", "openai/gpt-4o",
		map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "sk-test"})
	out, err := f.runner.RunAgent(context.Background(), f.job)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != board.RunCompleted || out.Summary != "Over Chat Completions." {
		t.Fatalf("outcome %+v", out)
	}
	if r := srv.Requests(); len(r) != 1 || r[0].Path != "/v1/chat/completions" {
		t.Errorf("requests %+v", r)
	}
}

func cut(s string) string {
	if len(s) > 300 {
		return s[:300]
	}
	return s
}
