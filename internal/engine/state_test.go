package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// bash is a scripted Claude Code Bash call of command.
func bash(id, command string) llmtest.ServerTurn {
	args, _ := json.Marshal(map[string]string{"command": command, "description": "plant"})
	return call(id, "Bash", string(args))
}

// The agent replaces the engine's prompt file, where it was (the
// worktree's git metadata) and where it is (the data directory), with a
// link to a host file, then points the worktree's .git file elsewhere:
// the next runs write the prompt (which carries the ticket's text) to
// neither the host file nor the path the agent named.
func TestEngineStateIgnoresWhatTheAgentWrote(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	f := claudeFixture(t, srv)
	clone := gittest.Repo(t, filepath.Join(f.dir, "clone"), nil)
	if err := os.Remove(f.root); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, clone, "worktree", "add", "-q", "--detach", f.root)
	meta := strings.TrimSpace(gittest.Run(t, f.root, "rev-parse", "--absolute-git-dir"))
	host := filepath.Join(f.dir, "host", ".bashrc")
	if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
		t.Fatal(err)
	}
	const bashrc = "# the user's shell\n"
	if err := os.WriteFile(host, []byte(bashrc), 0o644); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(f.dir, "named")
	oldPrompt := filepath.Join(meta, "bonsai-engines", "claude-code", "bonsai-system.md")
	newPrompt := filepath.Join(engine.StateRoot(f.dir, "demo", 1), "config", "claude-code", "bonsai-system.md")
	// The agent's scripts, as a prompt-injected agent would write them.
	scripts := map[string]string{
		"plant.sh": "mkdir -p " + filepath.Dir(oldPrompt) + " " + filepath.Dir(newPrompt) + "\n" +
			"ln -sfn " + host + " " + oldPrompt + "\nln -sfn " + host + " " + newPrompt + "\necho PLANTED\n",
		"away.sh": "printf 'gitdir: %s\\n' " + named + " > .git\necho AWAY\n",
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(f.root, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	steps := [][]llmtest.ServerTurn{
		{bash("toolu_1", "sh plant.sh"), text("Planted.")},
		{bash("toolu_2", "sh away.sh"), text("Pointed .git away.")},
		{text("Nothing more.")},
	}
	for i, turns := range steps {
		srv.Push(turns...)
		out, err := f.runner.RunAgent(context.Background(), f.job)
		if err != nil || out.Status != board.RunCompleted {
			t.Fatalf("run %d: %+v, %v", i+1, out, err)
		}
		if b, err := os.ReadFile(host); err != nil || string(b) != bashrc {
			t.Fatalf("after run %d the host file holds %.80q… (%v): the prompt was written through the agent's link", i+1, b, err)
		}
		if _, err := os.Lstat(named); err == nil {
			t.Fatalf("after run %d %s exists: the runtime took a path from the worktree's .git file", i+1, named)
		}
	}
	if !ran(srv, "PLANTED") || !ran(srv, "AWAY") {
		t.Fatal("the agent's commands did not run: the test proves nothing")
	}
	fi, err := os.Lstat(newPrompt)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the prompt file: %v, %v; want the runtime's regular file in place of the link", fi, err)
	}
	if b, _ := os.ReadFile(newPrompt); !strings.Contains(string(b), "Add a feature") {
		t.Errorf("the prompt file does not hold the ticket:\n%s", b)
	}
}

// ran reports whether a command's output holding s went back to the model.
func ran(srv *llmtest.Server, s string) bool {
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Raw), s) {
			return true
		}
	}
	return false
}
