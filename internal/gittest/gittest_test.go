package gittest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/gittest"
)

func TestRepo_OneCommitOnMain(t *testing.T) {
	t.Parallel()
	dir := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"a/b.txt": "b\n", "c.txt": "c\n"})
	if got := gittest.Run(t, dir, "rev-parse", "--abbrev-ref", "HEAD"); got != "main" {
		t.Errorf("branch = %q, want main", got)
	}
	if got := gittest.Run(t, dir, "log", "--format=%s <%ae>"); got != "initial <t@example.com>" {
		t.Errorf("log = %q, want one commit by the test identity", got)
	}
	if got := gittest.Run(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("status = %q, want everything committed", got)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a", "b.txt")); err != nil || string(b) != "b\n" {
		t.Errorf("a/b.txt = %q, %v", b, err)
	}
}

func TestRepo_DefaultReadme(t *testing.T) {
	t.Parallel()
	dir := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), nil)
	if got := gittest.Run(t, dir, "ls-files"); got != "README.md" {
		t.Errorf("files = %q, want README.md", got)
	}
}

func TestGit_FailureNamesTheCommand(t *testing.T) {
	t.Parallel()
	_, err := gittest.Git(t.TempDir(), "rev-parse", "--verify", "no-such-ref")
	if err == nil {
		t.Fatal("git rev-parse of a missing ref in a non-repository succeeded")
	}
}
