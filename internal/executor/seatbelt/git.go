package seatbelt

import (
	"fmt"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// worktreeMeta returns the metadata directory of the clone's worktree at
// root, named below gitDir as given (executor.WorktreeMeta, which never
// reads the worktree's own .git file).
func worktreeMeta(root, gitDir string) (string, error) {
	meta, err := executor.WorktreeMeta(root, gitDir)
	if err != nil {
		return "", fmt.Errorf("seatbelt: %w", err)
	}
	return filepath.Join(gitDir, "worktrees", filepath.Base(meta)), nil
}
