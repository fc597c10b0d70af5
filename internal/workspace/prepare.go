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
	ws := &Workspace{Branch: t.Branch, Base: Remote + "/" + proj.DefaultBranch, Remote: Remote,
		Root: p.WorktreePath(proj.Slug, t.Number), Clone: p.ClonePath(proj.Slug)}
	if ws.Branch == "" {
		ws.Branch = BranchName(proj.Slug, t.Number, t.Title)
	}
	// One read of every ref Prepare needs: the default branch, and the
	// ticket branch here, on the remote as this fetch saw it (the next
	// push's lease) and as last caught up with (shared boards).
	read, err := c.tips(ctx, "refs/remotes/"+ws.Base, "refs/heads/"+ws.Branch,
		"refs/remotes/"+Remote+"/"+ws.Branch, syncedRefs+ws.Branch)
	if err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
	}
	base, tips := read[0], branchTips{local: read[1], remote: read[2], synced: read[3]}
	if base == "" {
		return nil, &RepoError{Repo: proj.Repo, Err: fmt.Errorf("default branch %q not found in %s", proj.DefaultBranch, proj.Repo)}
	}
	reused := isWorktree(ws.Root)
	if err := p.see(ctx, g, proj, ws.Branch, tips.remote); err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
	}
	var cu *catchUp
	if p.opts.SharedBoard {
		if cu, err = c.planCatchUp(ctx, ws.Branch, tips, reused); err != nil {
			return nil, fmt.Errorf("worktree for %s: %w", t.Ref(), err)
		}
	}
	if err := p.ensureWorktree(ctx, c, ws, t.Branch != "", base, tips); err != nil {
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
		if ws.Moved != nil {
			ws.Head = ws.Moved.To
		}
	}
	if ws.Head != "" && (ws.Head == base || ws.Head == tips.remote) {
		ws.settled = ws.Head
	}
	return ws, nil
}

// see records in the project's review repository the commit of branch on
// the remote as Prepare's fetch saw it (see reviewRepo.see). The clone's
// config was just checked (ensureClone's openClone), so reading from the
// clone does not list it again. A branch the remote does not have, in a
// project with no review repository yet (its first run), has no lease to
// record or forget: the repository is made when a push or a review first
// needs it, not here.
func (p *Provider) see(ctx context.Context, g *gitRunner, proj board.Project, branch, remote string) error {
	if remote == "" && !p.hasReview(proj.Slug) {
		return nil
	}
	r, err := p.openReview(ctx, g, proj)
	if err != nil {
		return err
	}
	r.checked = true
	return r.see(ctx, branch, remote)
}

// ensureWorktree makes ws.Root a worktree of the clone on ws.Branch,
// with no files yet (checkOut writes them), and sets ws.Head. hadBranch
// says whether the ticket already recorded its branch; base is the
// default branch's commit and tips the ticket branch's, as Prepare read
// them (which nothing since moved but a catch-up, planCatchUp). A new
// branch starts from base itself, never from a name git would look up
// again among refs the agent can write: the worktree is added detached
// at base, and checkOut makes the branch there (`worktree add -b` would
// start two more git processes, `branch` and `symbolic-ref`, for what
// the checkout's one command does). A worktree left without its branch
// and its files (a crash between the two) gets both the same way.
func (p *Provider) ensureWorktree(ctx context.Context, c *cloneGit, ws *Workspace, hadBranch bool, base string, tips branchTips) error {
	ws.Head = tips.local
	if isWorktree(ws.Root) {
		if tips.local == "" {
			ws.start = base
			if tips.remote != "" {
				ws.start = tips.remote
			}
		}
		return nil
	}
	// Whatever is there is not a worktree git knows (a crash mid-add, or
	// a directory removed by hand): clear it.
	if err := os.RemoveAll(ws.Root); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(ws.Root), 0o700); err != nil {
		return err
	}
	ws.Created = true
	add := []string{"worktree", "add", "--quiet", "--no-checkout"}
	switch {
	case tips.local != "":
		add = append(add, ws.Root, ws.Branch)
	case tips.remote != "":
		add, ws.Head = append(add, "-b", ws.Branch, ws.Root, "refs/remotes/"+Remote+"/"+ws.Branch), tips.remote
	default:
		ws.Recreated = hadBranch
		add, ws.Head, ws.start = append(add, "--detach", ws.Root, base), base, base
	}
	if _, err := c.run(ctx, add...); err == nil {
		return nil
	}
	// git may still know a worktree that is gone (it refuses the path,
	// or the branch as checked out there): let it forget those and try
	// again. A failed add -b may have made the branch, or the branch
	// appeared since Prepare read it: the retry takes it.
	if _, err := c.run(ctx, "worktree", "prune"); err != nil {
		return err
	}
	if tips.local == "" {
		if made, err := c.tip(ctx, "refs/heads/"+ws.Branch); err != nil {
			return err
		} else if made != "" {
			add, ws.Head, ws.start = append(add[:4], ws.Root, ws.Branch), made, ""
		}
	}
	_, err := c.run(ctx, add...)
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
	args := []string{"reset", "--hard", "--quiet"}
	if ws.start != "" {
		// The branch starts at the commit the host chose, whatever the
		// worktree's HEAD says; -b fails rather than move a branch of
		// that name made since Prepare read the refs.
		args = []string{"checkout", "--quiet", "--force", "-b", ws.Branch, ws.start}
	}
	if _, err := (worktreeGit{ex: ws.Exec}).run(ctx, args...); err != nil {
		if _, rerr := c.run(ctx, "worktree", "remove", "--force", ws.Root); rerr != nil {
			removeTree(ws.Root)
			c.run(ctx, "worktree", "prune")
		}
		return fmt.Errorf("check out %s: %w", ws.Branch, err)
	}
	if ws.start != "" {
		ws.Head, ws.start = ws.start, ""
	}
	return nil
}

// isWorktree reports whether dir is the top of a git worktree: linked
// worktrees have a .git file pointing at the clone.
func isWorktree(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil && !fi.IsDir()
}
