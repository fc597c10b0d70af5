package agenthost_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/agenthost"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func openDir(dir string) (executor.Executor, error) { return local.New(dir, local.Options{}) }

// TestNew_AssemblesTheWorkspaceAgent builds an agent on a workspace with
// an AGENTS.md, a repository skill, a user skill and a repository skill
// that is a symlink out of the workspace: the prompt lists what belongs to
// the workspace and the user, read serves the user's skill, and nothing
// the symlink points at reaches the model.
func TestNew_AssemblesTheWorkspaceAgent(t *testing.T) {
	root, user, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, "AGENTS.md"), "Run make check first.")
	write(t, filepath.Join(root, ".bonsai", "skills", "release", "SKILL.md"), "---\nname: release\ndescription: Cut a release\n---\n")
	write(t, filepath.Join(user, "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploy it\n---\nsteps")
	write(t, filepath.Join(outside, "SKILL.md"), "---\nname: evil\ndescription: SECRET from the host\n---\n")
	os.MkdirAll(filepath.Join(root, ".bonsai", "skills", "evil"), 0o755)
	if err := os.Symlink(filepath.Join(outside, "SKILL.md"), filepath.Join(root, ".bonsai", "skills", "evil", "SKILL.md")); err != nil {
		t.Skip("no symlinks:", err)
	}
	ws, err := local.New(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	args, _ := json.Marshal(map[string]string{"path": "~/.bonsai/skills/deploy/SKILL.md"})
	model := llmtest.NewModel(
		llmtest.Turn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.ToolCall("c1", "read", args)}}},
		llmtest.Turn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("done")}}})
	h, err := agenthost.New(context.Background(), agenthost.Config{
		Prompt: agenthost.Prompt{Workspace: ws, Root: root, Name: "demo", UserSkills: user,
			Date: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		OpenDir: openDir, Tools: []string{"read", "ls"}, Model: model, Info: llm.Info{ID: "llmtest/x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	res := h.Agent().Prompt(context.Background(), llm.UserText("go"))
	if res.Reason != "stop" {
		t.Fatalf("run ended %s: %s", res.Reason, res.Detail)
	}
	reqs := model.Requests()
	sys := reqs[0].System
	for _, want := range []string{"Run make check first.", "release: Cut a release (.bonsai/skills/release/SKILL.md)",
		"deploy: Deploy it (~/.bonsai/skills/deploy/SKILL.md)"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "SECRET") {
		t.Errorf("a skill behind a symlink out of the workspace reached the prompt:\n%s", sys)
	}
	var names []string
	for _, s := range reqs[0].Tools {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "read,ls" {
		t.Errorf("tools = %v, want read,ls", names)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if got := last.Content[0].Text; !strings.Contains(got, "steps") {
		t.Errorf("reading the user's skill gave %q", got)
	}
}

// TestSessions_OpenResumesTheLatest: a new session, then Open with latest
// resumes it; in memory nothing is written and forks have no path.
func TestSessions_OpenResumesTheLatest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	s := agenthost.Sessions{Dir: dir, Cwd: "/w"}
	first, err := s.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.AppendModelChange("llmtest/x", ""); err != nil {
		t.Fatal(err)
	}
	first.Close()
	again, err := s.Open("", true)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.Path() != first.Path() {
		t.Errorf("latest = %s, want %s", again.Path(), first.Path())
	}
	if p := s.ForkPath(); filepath.Dir(p) != dir {
		t.Errorf("fork path %s is not in %s", p, dir)
	}
	mem := agenthost.Sessions{Dir: dir, Cwd: "/w", Memory: true}
	if p := mem.ForkPath(); p != "" {
		t.Errorf("in-memory fork path = %q", p)
	}
	f, err := mem.Open("", true)
	if err != nil {
		t.Fatal(err)
	}
	if f.Path() != "" {
		t.Errorf("in-memory session has a path %s", f.Path())
	}
	// Resume creates a missing file.
	p := filepath.Join(dir, "t.jsonl")
	r, err := agenthost.Resume(p, "/w", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := os.Stat(p); err != nil {
		t.Errorf("Resume did not create %s: %v", p, err)
	}
}
