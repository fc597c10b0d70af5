package executor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bonsai-run/bonsai/internal/beneath"
)

// maxGitdirFile bounds the gitdir file of a worktree's metadata.
const maxGitdirFile = 4 << 10

// WorktreeMeta returns the metadata directory (gitDir/worktrees/<name>)
// of the clone's linked worktree at root. It never reads root/.git: the
// worktree is the agent's to write, and a rewritten .git file could name
// another ticket's metadata. Instead it looks for the metadata directory
// whose gitdir file (written by the runtime's git, read-only in the
// sandbox) names root/.git, reading below gitDir without following a link.
// gitDir and root are the runtime's own paths; both are compared with
// their links resolved.
func WorktreeMeta(root, gitDir string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("the workspace %s: %w", root, err)
	}
	realGit, err := filepath.EvalSymlinks(gitDir)
	if err != nil {
		return "", fmt.Errorf("the git directory %s: %w", gitDir, err)
	}
	des, err := os.ReadDir(filepath.Join(realGit, "worktrees"))
	if err != nil {
		return "", fmt.Errorf("the workspace %s is not a worktree of %s: %w", root, gitDir, err)
	}
	want := filepath.Join(realRoot, ".git")
	for _, de := range des {
		if !de.IsDir() {
			continue // a link or a file is nothing git made
		}
		b, err := beneath.ReadFile(realGit, filepath.Join("worktrees", de.Name(), "gitdir"), maxGitdirFile)
		if err != nil {
			continue
		}
		named := strings.TrimSpace(string(b))
		if named == want || named == filepath.Join(root, ".git") {
			return filepath.Join(realGit, "worktrees", de.Name()), nil
		}
	}
	return "", fmt.Errorf("the workspace %s is not a worktree of %s", root, gitDir)
}
