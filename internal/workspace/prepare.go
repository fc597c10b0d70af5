package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
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
	c, err := p.ensureClone(ctx, g, proj)
	if err != nil {
		return nil, &RepoError{Repo: proj.Repo, Err: err}
	}
	base := Remote + "/" + proj.DefaultBranch
	if !c.refExists(ctx, base) {
		return nil, &RepoError{Repo: proj.Repo, Err: fmt.Errorf("default branch %q not found in %s", proj.DefaultBranch, proj.Repo)}
	}
	ws := &Workspace{Branch: t.Branch, Base: base, Remote: Remote, Root: p.WorktreePath(proj.Slug, t.Number), Clone: p.ClonePath(proj.Slug)}
	if ws.Branch == "" {
		ws.Branch = BranchName(proj.Slug, t.Number, t.Title)
	}
	reused := isWorktree(ws.Root)
	// The branch on the remote as this fetch saw it: the next push's lease.
	seen, err := c.tip(ctx, "refs/remotes/"+Remote+"/"+ws.Branch)
	if err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
	}
	if err := p.see(ctx, g, proj, ws.Branch, seen); err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
	}
	var cu *catchUp
	if p.opts.SharedBoard {
		if cu, err = c.planCatchUp(ctx, ws.Branch, reused); err != nil {
			return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
		}
	}
	if err := p.ensureWorktree(ctx, c, ws, t.Branch != "", seen != ""); err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
	}
	if ws.Exec, err = p.opts.OpenAgent(proj, ws.Root, ws.Clone); err != nil {
		return nil, fmt.Errorf("open worktree of %s: %w", t.Ref(), err)
	}
	// The run's mark goes on before the checkout's command starts the
	// sandbox, which the run then keeps.
	executor.ApplyMark(ctx, ws.Exec)
	if err := p.checkOut(ctx, c, ws); err != nil {
		ws.Close()
		return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
	}
	if cu != nil {
		if err := cu.finish(ctx, c, ws, reused); err != nil {
			ws.Close()
			return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
		}
	}
	return ws, nil
}

// see records in the project's review repository the commit of branch on
// the remote as Prepare's fetch saw it (see reviewRepo.see). The clone's
// config was just checked (ensureClone's openClone), so reading from the
// clone does not list it again.
func (p *Provider) see(ctx context.Context, g *gitRunner, proj board.Project, branch, remote string) error {
	r, err := p.openReview(ctx, g, proj)
	if err != nil {
		return err
	}
	r.checked = true
	return r.see(ctx, branch, remote)
}

// ensureWorktree makes ws.Root a worktree of the clone on ws.Branch,
// with no files yet (checkOut writes them). hadBranch says whether the
// ticket already recorded its branch, onRemote whether Prepare found it
// among the clone's remote-tracking branches (which nothing since moved).
func (p *Provider) ensureWorktree(ctx context.Context, c *cloneGit, ws *Workspace, hadBranch, onRemote bool) error {
	if isWorktree(ws.Root) {
		return nil
	}
	// Whatever is there is not a worktree git knows (a crash mid-add, or
	// a directory removed by hand): clear it and let git forget it.
	if err := os.RemoveAll(ws.Root); err != nil {
		return err
	}
	if _, err := c.run(ctx, "worktree", "prune"); err != nil {
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
	case c.refExists(ctx, local):
		_, err = c.run(ctx, "worktree", "add", "--quiet", "--no-checkout", ws.Root, ws.Branch)
	case onRemote:
		_, err = c.run(ctx, "worktree", "add", "--quiet", "--no-checkout", "-b", ws.Branch, ws.Root, remote)
	default:
		ws.Recreated = hadBranch
		_, err = c.run(ctx, "worktree", "add", "--quiet", "--no-checkout", "--no-track", "-b", ws.Branch, ws.Root, ws.Base)
	}
	return err
}

// checkOut writes the files of a worktree that has none yet (ensureWorktree
// made it, or a process stopped before its files were written: its
// metadata has no index) through the worktree's own executor: a checkout
// runs the filters, and reads the attributes and config, the agent can
// write, so it runs where the agent's commands do (the sandbox), never on
// the host. A worktree whose files could not be written is removed, so
// that the next Prepare starts it again.
func (p *Provider) checkOut(ctx context.Context, c *cloneGit, ws *Workspace) error {
	meta, err := executor.WorktreeMeta(ws.Root, filepath.Join(ws.Clone, ".git"))
	if err != nil {
		return err
	}
	if _, err := os.Lstat(filepath.Join(meta, "index")); err == nil {
		return nil
	}
	if _, err := (worktreeGit{ex: ws.Exec}).run(ctx, "reset", "--hard", "--quiet"); err != nil {
		if _, rerr := c.run(ctx, "worktree", "remove", "--force", ws.Root); rerr != nil {
			removeTree(ws.Root)
			c.run(ctx, "worktree", "prune")
		}
		return fmt.Errorf("check out %s: %w", ws.Branch, err)
	}
	return nil
}

// isWorktree reports whether dir is the top of a git worktree: linked
// worktrees have a .git file pointing at the clone.
func isWorktree(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil && !fi.IsDir()
}
