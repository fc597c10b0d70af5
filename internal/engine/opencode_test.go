package engine_test

import (
	"context"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

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
