package runui

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agenthost"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// TestAssemble_ModelPrecedence: the model and level asked for win, then
// the resumed session's, then config.json's; a change from the session's
// is recorded in it, so a resumed session keeps its model.
func TestAssemble_ModelPrecedence(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ex, err := local.New(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	sessions := agenthost.Sessions{Dir: filepath.Join(t.TempDir(), "sessions"), Cwd: root}
	var asked []string
	assemble := func(path, model, configModel string, thinking llm.ThinkingLevel, set bool) llm.ThinkingLevel {
		t.Helper()
		sess, err := sessions.Open(path, false)
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		s := Setup{Workspace: ex, Root: root, Session: sess, Model: model, ConfigModel: configModel,
			Thinking: thinking, ThinkingSet: set, ConfigThinking: llm.ThinkingLow,
			OpenDir: func(dir string) (executor.Executor, error) { return local.New(dir, local.Options{}) },
			Models: func(id string) (llm.Model, llm.Info, string, error) {
				asked = append(asked, id)
				return llmtest.NewModel(), llm.Info{ID: id}, "", nil
			},
			Policy: policy.Config{DataDir: t.TempDir()}, Tools: agenthost.CodingTools(), Warn: func(string) {}}
		host, _, err := Assemble(context.Background(), s, &Events{})
		if err != nil {
			t.Fatal(err)
		}
		defer host.Close()
		return sess.Context().Thinking
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if got := assemble(path, "", "cfg/model", llm.ThinkingOff, false); got != llm.ThinkingLow {
		t.Errorf("new session: thinking %q, want config.json's low", got)
	}
	if got := assemble(path, "", "other/model", llm.ThinkingOff, false); got != llm.ThinkingLow {
		t.Errorf("resumed: thinking %q, want the session's low", got)
	}
	if got := assemble(path, "flag/model", "other/model", llm.ThinkingHigh, true); got != llm.ThinkingHigh {
		t.Errorf("asked: thinking %q, want high", got)
	}
	want := []string{"cfg/model", "cfg/model", "flag/model"}
	if len(asked) != 3 || asked[0] != want[0] || asked[1] != want[1] || asked[2] != want[2] {
		t.Errorf("models asked %v, want %v", asked, want)
	}
}
