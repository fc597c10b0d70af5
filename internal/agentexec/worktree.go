package agentexec

import (
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
)

// WorktreeClone returns the repository of project p whose linked
// worktree root is: Bonsai's clone of it (clone) or the local repository
// it was added from. It asks each candidate's worktrees/*/gitdir
// (executor.WorktreeMeta), never root's .git file: the agent writes the
// worktree, and the repository found is bound into the sandbox.
func WorktreeClone(root, clone string, p board.Project) (string, error) {
	var tried []string
	for _, c := range []string{clone, localRepo(p.Repo)} {
		if c == "" {
			continue
		}
		if _, err := executor.WorktreeMeta(root, GitDirOf(c)); err == nil {
			return c, nil
		}
		tried = append(tried, c)
	}
	return "", fmt.Errorf("%s is no worktree of the project's repository (%s): make one with `git worktree add` there, "+
		"or leave --root out to use the ticket's own worktree", root, strings.Join(tried, " or "))
}

// localRepo is repo as a directory when it is a local repository's path,
// else "".
func localRepo(repo string) string {
	if !board.IsLocalRepo(repo) {
		return ""
	}
	return strings.TrimPrefix(repo, "file://")
}
