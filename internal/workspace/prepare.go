package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Prepare resolves ticket t of project proj to its workspace: it clones the
// project once, fetches, and creates or reuses the ticket's worktree on the
// ticket's branch (t.Branch, or BranchName when the ticket has none yet).
// A recorded branch is kept, even one named before branch names held the
// project ("bonsai/<n>-<title>"), so work in progress is never moved.
// A worktree a previous beat left behind is reused as it is, uncommitted
// changes included, so work survives a crash. The caller closes the
// workspace.
//
// On a shared board (Options.SharedBoard) another machine may have worked
// the ticket since this one did, so the branch pushed to the remote is
// where work resumes: a clone or worktree made now starts from it, and an
// existing one moves to it when the remote branch moved since this clone
// last caught up with it (an earlier Prepare) or pushed it, unless the
// local branch already holds it. Local commits the pushed branch lacks are kept under
// refs/bonsai/moved/<branch>/<commit>, uncommitted changes (an older
// crashed run's, which the other machine never saw) under
// refs/bonsai/leftovers/<branch>/<commit> as a stash commit, and
// Workspace.Moved says so. A local branch ahead of the remote (a push
// that failed) is kept, to be pushed at the end of the run.
func (p *Provider) Prepare(ctx context.Context, proj board.Project, t board.Ticket) (*Workspace, error) {
	ws, err := p.prepare(ctx, proj, t)
	return ws, p.hidePaths(err)
}

func (p *Provider) prepare(ctx context.Context, proj board.Project, t board.Ticket) (*Workspace, error) {
	if err := os.MkdirAll(p.opts.Projects, 0o700); err != nil {
		return nil, fmt.Errorf("prepare workspace: %w", err)
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := p.ensureClone(ctx, g, proj); err != nil {
		return nil, &RepoError{Repo: proj.Repo, Err: err}
	}
	base := Remote + "/" + proj.DefaultBranch
	if !g.refExists(ctx, proj.Slug, base) {
		return nil, &RepoError{Repo: proj.Repo, Err: fmt.Errorf("default branch %q not found in %s", proj.DefaultBranch, proj.Repo)}
	}
	ws := &Workspace{Branch: t.Branch, Base: base, Remote: Remote, Root: p.WorktreePath(proj.Slug, t.Number), Clone: p.ClonePath(proj.Slug)}
	if ws.Branch == "" {
		ws.Branch = BranchName(proj.Slug, t.Number, t.Title)
	}
	reused := isWorktree(ws.Root)
	var c *catchUp
	if p.opts.SharedBoard {
		if c, err = g.planCatchUp(ctx, proj.Slug, ws.Branch, reused); err != nil {
			return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
		}
	}
	if err := p.ensureWorktree(ctx, g, proj.Slug, ws, t.Branch != ""); err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
	}
	if ws.Exec, err = p.opts.OpenAgent(proj, ws.Root, ws.Clone); err != nil {
		return nil, fmt.Errorf("open worktree of %s: %w", t.Ref(), err)
	}
	if c != nil {
		if err := c.finish(ctx, g, proj.Slug, ws, reused); err != nil {
			ws.Close()
			return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
		}
	}
	return ws, nil
}

// ensureWorktree makes ws.Root a worktree of the clone on ws.Branch.
// hadBranch says whether the ticket already recorded its branch.
func (p *Provider) ensureWorktree(ctx context.Context, g *gitRunner, slug string, ws *Workspace, hadBranch bool) error {
	if isWorktree(ws.Root) {
		return nil
	}
	// Whatever is there is not a worktree git knows (a crash mid-add, or
	// a directory removed by hand): clear it and let git forget it.
	if err := os.RemoveAll(ws.Root); err != nil {
		return err
	}
	if _, err := g.run(ctx, slug, "worktree", "prune"); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(ws.Root), 0o700); err != nil {
		return err
	}
	ws.Created = true
	local := "refs/heads/" + ws.Branch
	remote := "refs/remotes/" + Remote + "/" + ws.Branch
	var err error
	switch {
	case g.refExists(ctx, slug, local):
		_, err = g.run(ctx, slug, "worktree", "add", "--quiet", ws.Root, ws.Branch)
	case g.refExists(ctx, slug, remote):
		_, err = g.run(ctx, slug, "worktree", "add", "--quiet", "-b", ws.Branch, ws.Root, remote)
	default:
		ws.Recreated = hadBranch
		_, err = g.run(ctx, slug, "worktree", "add", "--quiet", "--no-track", "-b", ws.Branch, ws.Root, ws.Base)
	}
	return err
}

// isWorktree reports whether dir is the top of a git worktree: linked
// worktrees have a .git file pointing at the clone.
func isWorktree(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil && !fi.IsDir()
}
