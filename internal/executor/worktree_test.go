package executor_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/gittest"
)

// TestWorktreeMeta: the metadata directory comes from the clone's own
// gitdir files, so a worktree whose .git file the agent rewrote to name
// another ticket's metadata still gets its own, and links are not
// followed.
func TestWorktreeMeta(t *testing.T) {
	t.Parallel()
	clone := gittest.Repo(t, t.TempDir(), nil)
	base := t.TempDir()
	one, two := filepath.Join(base, "1"), filepath.Join(base, "2")
	gittest.Run(t, clone, "worktree", "add", "--quiet", "-b", "one", one)
	gittest.Run(t, clone, "worktree", "add", "--quiet", "-b", "two", two)
	gitDir := filepath.Join(clone, ".git")
	metaOf := func(root string) string {
		t.Helper()
		m, err := executor.WorktreeMeta(root, gitDir)
		if err != nil {
			t.Fatalf("WorktreeMeta(%s): %v", root, err)
		}
		return m
	}
	metaOne, metaTwo := metaOf(one), metaOf(two)
	if metaOne == metaTwo || filepath.Base(filepath.Dir(metaOne)) != "worktrees" {
		t.Fatalf("metadata directories %s and %s", metaOne, metaTwo)
	}
	// The agent of ticket 1 names ticket 2's metadata (absolute and
	// relative), or a directory of its own choosing.
	for _, line := range []string{"gitdir: " + metaTwo, "gitdir: ../" + filepath.Base(metaTwo), "gitdir: /etc"} {
		if err := os.WriteFile(filepath.Join(one, ".git"), []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := metaOf(one); got != metaOne {
			t.Errorf("with %q in .git: metadata %s, want %s", line, got, metaOne)
		}
	}
	// A link planted among the worktrees' metadata is not followed.
	evil := t.TempDir()
	if err := os.WriteFile(filepath.Join(evil, "gitdir"), []byte(filepath.Join(base, "3", ".git")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(evil, filepath.Join(gitDir, "worktrees", "evil")); err != nil {
		t.Fatal(err)
	}
	if m, err := executor.WorktreeMeta(filepath.Join(base, "3"), gitDir); err == nil {
		t.Errorf("a linked metadata directory was taken: %s", m)
	}
	// A directory that is no worktree of the clone has none.
	if m, err := executor.WorktreeMeta(t.TempDir(), gitDir); err == nil {
		t.Errorf("a plain directory got metadata %s", m)
	}
}
