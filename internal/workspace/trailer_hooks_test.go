package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// TestNameModel_HooksNoLinkOut: a clone whose .git/hooks is a link out
// of it (an agent running without the sandbox could make one, where a
// new clone has no hooks directory yet) is refused: neither the hook nor
// a trailer is written where the link points.
func TestNameModel_HooksNoLinkOut(t *testing.T) {
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
	hooks := filepath.Join(ws.Clone, ".git", "hooks")
	if err := os.RemoveAll(hooks); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, hooks); err != nil {
		t.Fatal(err)
	}
	if err := p.NameModel("demo", 1, "openai/gpt-5"); err == nil {
		t.Error("NameModel through a linked .git/hooks worked, want it refused")
	}
	if des, _ := os.ReadDir(outside); len(des) != 0 {
		t.Errorf("NameModel wrote %d files where the link points", len(des))
	}
}
