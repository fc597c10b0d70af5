package seatbelt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// worktreeMeta reads root/.git ("gitdir: <gitDir>/worktrees/<name>") and
// returns that directory, which must be inside gitDir/worktrees.
func worktreeMeta(root, gitDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, ".git"))
	if err != nil {
		return "", fmt.Errorf("seatbelt: the workspace is not a git worktree: %w", err)
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", fmt.Errorf("seatbelt: the workspace's .git file has no gitdir line")
	}
	meta := strings.TrimSpace(line)
	if !filepath.IsAbs(meta) {
		meta = filepath.Join(root, meta)
	}
	real, err := filepath.EvalSymlinks(meta)
	if err != nil {
		return "", fmt.Errorf("seatbelt: worktree metadata: %w", err)
	}
	gitReal, err := filepath.EvalSymlinks(gitDir)
	if err != nil {
		return "", fmt.Errorf("seatbelt: git directory: %w", err)
	}
	if filepath.Dir(real) != filepath.Join(gitReal, "worktrees") {
		return "", fmt.Errorf("seatbelt: the workspace is a worktree of another clone than the git directory %s", gitDir)
	}
	return filepath.Join(gitDir, "worktrees", filepath.Base(real)), nil
}
