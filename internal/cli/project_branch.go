package cli

import (
	"context"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// checkBranch returns the default branch for a project whose repository is
// the local path repo: the repository's current branch when none was given
// (a repository on master would otherwise get "main" and fail its first
// beat), or the given one once it is known to exist. URLs are not checked.
func checkBranch(ctx context.Context, repo, branch string, given bool) (string, error) {
	if remoteRepo.MatchString(repo) {
		return branch, nil
	}
	if !given {
		out, err := exec.CommandContext(ctx, "git", "-C", repo, "symbolic-ref", "--short", "HEAD").Output()
		if b := strings.TrimSpace(string(out)); err == nil && b != "" {
			return b, nil
		}
		return branch, nil
	}
	if exec.CommandContext(ctx, "git", "-C", repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch).Run() == nil {
		return branch, nil
	}
	out, _ := exec.CommandContext(ctx, "git", "-C", repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/").Output()
	have := strings.Join(strings.Fields(string(out)), ", ")
	if have == "" {
		have = "none; commit something first"
	}
	return "", board.Errorf(board.EINVALID, "branch %q not found in %s (its branches: %s); give one with --branch", branch, repo, have)
}

// checkEditedBranch checks a new default branch against the project's local
// repository, the new one when --repo changes it too.
func checkEditedBranch(cmd *cobra.Command, s store.Store, slug string, u board.ProjectPatch) error {
	if strings.TrimSpace(*u.DefaultBranch) == "" {
		return usagef("--branch is empty; give the branch agents start from, e.g. main")
	}
	repo := ""
	if u.Repo != nil {
		repo = *u.Repo
	} else {
		p, err := s.Project(cmd.Context(), slug)
		if err != nil {
			return err
		}
		repo = p.Repo
	}
	if !isGitRepo(repo) {
		return nil // a URL, or a directory that has gone: the beat says so
	}
	_, err := checkBranch(cmd.Context(), repo, *u.DefaultBranch, true)
	return err
}
