package projectcmd

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// Branch is the default branch of a project whose repository is repo, as
// `project add|edit` and the web's project forms find and check it
// (workspace.DefaultBranch).
func Branch(ctx context.Context, repo, branch string) (string, error) {
	return workspace.DefaultBranch(ctx, repo, branch)
}

// checkEditedBranch checks a new default branch against the project's local
// repository, the new one when --repo changes it too.
func checkEditedBranch(cmd *cobra.Command, s store.Store, slug string, u board.ProjectPatch) error {
	if strings.TrimSpace(*u.DefaultBranch) == "" {
		return cmdkit.Usagef("--branch is empty; give the branch agents start from, e.g. main")
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
	if !workspace.IsRemote(repo) && !workspace.IsGitRepo(repo) {
		return nil // a directory that has gone: the beat says so
	}
	_, err := Branch(cmd.Context(), repo, *u.DefaultBranch)
	return err
}
