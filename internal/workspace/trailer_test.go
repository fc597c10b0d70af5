package workspace_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// commitAsIs commits in dir with git's environment free of any identity,
// as the agent's commands run: the clone's config decides who it is by.
func commitAsIs(t *testing.T, dir, msg string) {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command("git", "commit", "-q", "-m", msg)
	cmd.Dir, cmd.Env = dir, append(env, "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
}

// commitFile writes file in the worktree at root, commits it as the
// agent's commands do and returns the commit's message.
func commitFile(t *testing.T, root, file, msg string) string {
	t.Helper()
	write(t, filepath.Join(root, file), file+"\n")
	gittest.Run(t, root, "add", ".")
	commitAsIs(t, root, msg)
	return gittest.Run(t, root, "log", "-1", "--format=%B")
}

func TestAgentCommits_IdentityAndModelTrailer(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	data := t.TempDir()
	p, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open:          func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
		AgentIdentity: workspace.Identity{Name: "Bonsai agent", Email: "agent@bonsai.invalid"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ws := prepare(t, p, project(repo), ticket(1, "Greet"))
	if err := p.NameModel("demo", 1, "anthropic/claude-sonnet-4-5"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws.Root, "a.txt"), "a\n")
	gittest.Run(t, ws.Root, "add", ".")
	commitAsIs(t, ws.Root, "first")
	got := gittest.Run(t, ws.Root, "log", "-1", "--format=%an <%ae>|%cn|%B")
	want := "Bonsai agent <agent@bonsai.invalid>|Bonsai agent|first\n\nCo-authored-by: anthropic/claude-sonnet-4-5 <agent@bonsai.invalid>"
	if got != want {
		t.Errorf("commit =\n%s\nwant\n%s", got, want)
	}
	// Another model on the next run; no model removes the hook.
	if err := p.NameModel("demo", 1, "openai/gpt-5"); err != nil {
		t.Fatal(err)
	}
	if b := commitFile(t, ws.Root, "b.txt", "second"); !strings.HasSuffix(b, "Co-authored-by: openai/gpt-5 <agent@bonsai.invalid>") {
		t.Errorf("second commit = %q", b)
	}
	// Another ticket's worktree of the same clone runs with its own model
	// at the same time (best of N): each commit names its own.
	ws2 := prepare(t, p, project(repo), ticket(2, "Greet again"))
	if err := p.NameModel("demo", 2, "anthropic/claude-opus-4"); err != nil {
		t.Fatal(err)
	}
	if b := commitFile(t, ws2.Root, "d.txt", "other ticket"); !strings.HasSuffix(b, "Co-authored-by: anthropic/claude-opus-4 <agent@bonsai.invalid>") {
		t.Errorf("ticket 2's commit = %q, want its own model", b)
	}
	if b := commitFile(t, ws.Root, "e.txt", "fourth"); !strings.HasSuffix(b, "Co-authored-by: openai/gpt-5 <agent@bonsai.invalid>") {
		t.Errorf("ticket 1's commit after ticket 2's run started = %q, want ticket 1's model", b)
	}
	if err := p.NameModel("demo", 1, ""); err != nil {
		t.Fatal(err)
	}
	if b := commitFile(t, ws.Root, "c.txt", "third"); b != "third" {
		t.Errorf("commit without a model = %q", b)
	}

	// A person's own commit-msg hook is kept.
	hook := filepath.Join(ws.Clone, ".git", "hooks", "commit-msg")
	write(t, hook, "#!/bin/sh\nexit 0\n")
	if err := p.NameModel("demo", 1, "openai/gpt-5"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(hook); string(b) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("the person's hook was replaced:\n%s", b)
	}
}

// TestNameModel_NoLinkOut: a bonsai-models directory that is a link out
// of the clone's hooks (an agent running without the sandbox could make
// one) is refused, and nothing is written where it points.
func TestNameModel_NoLinkOut(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	data := t.TempDir()
	p, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	ws := prepare(t, p, project(repo), ticket(1, "Greet"))
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(ws.Clone, ".git", "hooks"), 0o755) // a new clone has none (no templates)
	if err := os.Symlink(outside, filepath.Join(ws.Clone, ".git", "hooks", "bonsai-models")); err != nil {
		t.Fatal(err)
	}
	if err := p.NameModel("demo", 1, "openai/gpt-5"); err == nil {
		t.Error("NameModel through a linked bonsai-models worked, want it refused")
	}
	if des, _ := os.ReadDir(outside); len(des) != 0 {
		t.Errorf("NameModel wrote %d files where the link points", len(des))
	}
}
