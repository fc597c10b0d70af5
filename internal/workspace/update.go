package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
)

// Update brings the default branch into the ticket branch checked out in
// ws (keeping it current): it merges ws.Base in, or rebases the branch on
// it, as style says, and reports whether the branch changed. A branch
// that already has ws.Base is left alone. A conflict aborts the merge or
// rebase, leaving the worktree as it was, and is a *ConflictError.
//
// git runs through the worktree's own executor, the agent's (sandboxed
// when the project says so): the clone's config and the repository's
// attributes, which the agent may have written, reach no command on the
// host. Hooks are off, so the merge commit gets no trailer of the agent's
// model; it is the runtime's. The worktree must be clean.
func Update(ctx context.Context, ws *Workspace, style board.UpdateStyle) (bool, error) {
	g := worktreeGit{ex: ws.Exec}
	if _, err := g.run(ctx, "merge-base", "--is-ancestor", ws.Base, "HEAD"); err == nil {
		return false, nil
	}
	var args, abort []string
	switch style {
	case board.UpdateRebase:
		args, abort = []string{"rebase", "--quiet", "--no-autostash", ws.Base}, []string{"rebase", "--abort"}
	default:
		args = []string{"merge", "--quiet", "--no-edit", "--no-verify", "--no-ff",
			"-m", fmt.Sprintf("Merge %s into %s", strings.TrimPrefix(ws.Base, Remote+"/"), ws.Branch), ws.Base}
		abort = []string{"merge", "--abort"}
	}
	if _, err := g.run(ctx, args...); err != nil {
		files, ferr := g.run(ctx, "diff", "--name-only", "--diff-filter=U")
		if ferr != nil || files == "" {
			return false, fmt.Errorf("bring %s into %s: %w", ws.Base, ws.Branch, err)
		}
		if _, aerr := g.run(ctx, abort...); aerr != nil {
			return false, fmt.Errorf("bring %s into %s: conflicts in %s, and the abort failed: %w", ws.Base, ws.Branch, files, aerr)
		}
		return false, &ConflictError{Branch: ws.Branch, Base: strings.TrimPrefix(ws.Base, Remote+"/"), Files: strings.Split(files, "\n")}
	}
	return true, nil
}

// worktreeGit runs git in a worktree through its executor, with hooks
// and the fsmonitor off and no signing.
type worktreeGit struct{ ex executor.Executor }

func (g worktreeGit) run(ctx context.Context, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	argv := append([]string{"git", "-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false",
		"-c", "commit.gpgSign=false", "-c", "rerere.enabled=false"}, args...)
	exit, err := g.ex.Exec(ctx, argv, executor.RunOptions{Output: &out, Stderr: &errOut, Timeout: localTimeout})
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	if exit.TimedOut || exit.Canceled {
		return "", fmt.Errorf("git %s: did not finish", args[0])
	}
	if exit.Code != 0 {
		return "", &GitError{Args: args, Code: exit.Code, Stderr: errOut.String() + out.String()}
	}
	return strings.TrimSpace(out.String()), nil
}

// ConflictHelp tells the agent how to bring project p's default branch
// into its branch when they conflict in files.
func ConflictHelp(p board.Project, files []string) string {
	how := "`git merge origin/" + p.DefaultBranch + "`, resolve the conflicts and commit the merge"
	if p.Agent.UpdateStyle == board.UpdateRebase {
		how = "`git rebase origin/" + p.DefaultBranch + "` and resolve the conflicts of each commit (`git add`, `git rebase --continue`)"
	}
	qs := make([]string, len(files))
	for i, f := range files {
		qs[i] = "`" + f + "`"
	}
	return fmt.Sprintf("The default branch `%s` changed since this work was done and now conflicts with it in %s. "+
		"Bring it in: run %s, keeping the intent of both sides; then check the work again and move the ticket to VERIFICATION.",
		p.DefaultBranch, strings.Join(qs, ", "), how)
}
