package cli

import (
	"context"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// projectBranch is the default branch of a project whose repository is
// repo, for `bonsai project add` and `project edit` and the web UI's
// "Add a project" form and project settings alike (web.Options.Branch):
//
//   - branch empty means detect it: a local repository's current branch
//     (a repository on master would otherwise get "main" and fail its
//     first beat), or, with HEAD detached, its only branch, else main or
//     master when it has them;
//   - a branch given, or detected, must exist in a local repository (in
//     one with no commit yet, be the branch HEAD names): a missing one is
//     an EINVALID error naming the branches it has.
//
// A git URL is not read (that needs the network and credentials): its
// branch is the one given, else main, and the first beat says when the
// remote lacks it.
func projectBranch(ctx context.Context, repo, branch string) (string, error) {
	branch = strings.TrimSpace(branch)
	if remoteRepo.MatchString(repo) {
		if branch == "" {
			branch = "main"
		}
		return branch, nil
	}
	if !isGitRepo(repo) {
		return "", board.Errorf(board.EINVALID, "%s is not a git repository (no .git in it); run 'git init' there and commit, or give a repository's top directory or a URL", repo)
	}
	have := localBranches(ctx, repo)
	head := headBranch(ctx, repo)
	if branch == "" {
		branch = detectBranch(head, have)
	}
	switch {
	case slices.Contains(have, branch):
		return branch, nil
	case len(have) == 0 && branch != "" && branch == head:
		// A repository with no commit yet: its first one will be on
		// the branch HEAD names.
		return branch, nil
	case branch == "":
		return "", board.Errorf(board.EINVALID, "%s has HEAD detached and several branches (%s); give one of them as the default branch", repo, strings.Join(have, ", "))
	case len(have) == 0:
		return "", board.Errorf(board.EINVALID, "branch %q not found in %s, which has no commit yet (HEAD is on %q); commit something first, or give that branch", branch, repo, head)
	}
	return "", board.Errorf(board.EINVALID, "branch %q not found in %s (its branches: %s); give one of them as the default branch", branch, repo, strings.Join(have, ", "))
}

// headBranch is the branch a local repository's HEAD is on, born or not;
// "" when HEAD is detached.
func headBranch(ctx context.Context, repo string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "symbolic-ref", "--quiet", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// detectBranch is the branch HEAD is on, or, when HEAD is detached, the
// repository's only branch, main or master; "" when none fits.
func detectBranch(head string, have []string) string {
	if head != "" {
		return head
	}
	if len(have) == 1 {
		return have[0]
	}
	for _, b := range []string{"main", "master"} {
		if slices.Contains(have, b) {
			return b
		}
	}
	return ""
}

// localBranches lists a local repository's branches.
func localBranches(ctx context.Context, repo string) []string {
	out, _ := exec.CommandContext(ctx, "git", "-C", repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/").Output()
	return strings.Fields(string(out))
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
	if !remoteRepo.MatchString(repo) && !isGitRepo(repo) {
		return nil // a directory that has gone: the beat says so
	}
	_, err := projectBranch(cmd.Context(), repo, *u.DefaultBranch)
	return err
}
