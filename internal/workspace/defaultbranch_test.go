package workspace_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// Issue 27, item 16: a repository given as a URL gets its default branch
// from the remote, and a branch it does not have is refused, as for a
// local repository.
func TestDefaultBranch_OfARemote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := gittest.Repo(t, filepath.Join(t.TempDir(), "src"), nil)
	gittest.Run(t, src, "branch", "-m", "main", "master")
	gittest.Run(t, src, "branch", "release")
	bare := filepath.Join(t.TempDir(), "widget.git")
	gittest.Run(t, filepath.Dir(bare), "clone", "--quiet", "--bare", src, bare)
	url := "file://" + bare

	if got, err := workspace.DefaultBranch(ctx, url, ""); err != nil || got != "master" {
		t.Fatalf("detected %q, %v; want master (the remote's HEAD)", got, err)
	}
	if got, err := workspace.DefaultBranch(ctx, url, "release"); err != nil || got != "release" {
		t.Fatalf("given release: %q, %v", got, err)
	}
	_, err := workspace.DefaultBranch(ctx, url, "main")
	if board.ErrorCode(err) != board.EINVALID || !strings.Contains(err.Error(), "master") || !strings.Contains(err.Error(), "release") {
		t.Fatalf("a branch the remote lacks: %v; want EINVALID naming master and release", err)
	}
}

// A remote that cannot be read keeps the branch given, else main.
func TestDefaultBranch_UnreachableRemoteKeepsTheGivenBranch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := "file://" + filepath.Join(t.TempDir(), "missing.git")
	if got, err := workspace.DefaultBranch(ctx, url, ""); err != nil || got != "main" {
		t.Fatalf("unreachable, none given: %q, %v; want main", got, err)
	}
	if got, err := workspace.DefaultBranch(ctx, url, "trunk"); err != nil || got != "trunk" {
		t.Fatalf("unreachable, trunk given: %q, %v", got, err)
	}
}

// A local repository on master is detected as such; a detached HEAD with
// several branches needs one named.
func TestDefaultBranch_Local(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "r"), nil)
	gittest.Run(t, repo, "branch", "-m", "main", "master")
	if got, err := workspace.DefaultBranch(ctx, repo, ""); err != nil || got != "master" {
		t.Fatalf("detected %q, %v", got, err)
	}
	gittest.Run(t, repo, "branch", "dev")
	gittest.Run(t, repo, "branch", "other")
	gittest.Run(t, repo, "checkout", "--quiet", "--detach")
	if got, err := workspace.DefaultBranch(ctx, repo, ""); err != nil || got != "master" {
		t.Fatalf("detached with master among them: %q, %v", got, err)
	}
	if _, err := workspace.DefaultBranch(ctx, filepath.Join(t.TempDir(), "nothing"), ""); board.ErrorCode(err) != board.EINVALID {
		t.Fatalf("not a repository: %v", err)
	}
}
