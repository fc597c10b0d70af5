package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Push pushes the workspace's branch to its remote when the branch has
// commits the default branch does not, and reports whether it pushed. The
// branch is read from the clone into the project's review repository
// (git checks each object as it arrives), counted there against the
// default branch fetched now from the project's repository, and pushed
// from there with the runtime's credentials (Options.RemoteEnv): neither
// the count nor the push reads the clone's remote-tracking refs, replace
// refs, commit-graph or config, which the agent can write. The branch
// belongs to Bonsai, so a rewritten history replaces the remote one,
// unless the remote branch moved since the ticket's worktree was prepared
// or last pushed (--force-with-lease against the commit recorded then in
// the review repository). It pushes to the project's URL, and refuses to
// run when the clone's config has settings that would send git elsewhere
// or run a program (UnsafeConfigError) or its git directory has
// alternates or links (TamperedError). A branch still at the commit
// Prepare left it at, when that was the default branch's or the remote
// branch's (or at the commit this Push last pushed), has nothing to push:
// it is read from the clone (its loose ref file, read without git and
// without following a link, else by git by its full name) and nothing is
// fetched, counted or pushed.
func (p *Provider) Push(ctx context.Context, proj board.Project, ws *Workspace) (pushed bool, err error) {
	defer func() { err = p.hidePaths(err) }()
	if ws.Remote == "" {
		return false, nil
	}
	if ws.settled != "" && p.looseTip(proj.Slug, ws.Branch, ws.settled) {
		// The branch's own file still names the commit it was left at:
		// nothing to push, and no git to run (the clone's check and a
		// for-each-ref are two processes a run that made no commit).
		return false, nil
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return false, err
	}
	defer done()
	url, _ := remoteURL(proj.Repo, g.remoteEnv)
	c, err := g.openClone(ctx, proj.Slug, url)
	if err != nil {
		return false, fmt.Errorf("push %s: %w", ws.Branch, err)
	}
	if ws.settled != "" {
		// A branch still where Prepare (or the last push) left it, at a
		// commit the default branch or the remote branch already had,
		// has nothing to push: one read of it by its full name instead
		// of two fetches and a count (a run that asked a question or
		// made no commit, the common case).
		read, err := c.tips(ctx, "refs/heads/"+ws.Branch)
		if err != nil {
			return false, fmt.Errorf("push %s: %w", ws.Branch, err)
		}
		if read[0] == ws.settled {
			return false, nil
		}
	}
	r, err := p.openReview(ctx, g, proj)
	if err != nil {
		return false, fmt.Errorf("push %s: %w", ws.Branch, err)
	}
	r.checked = true // openClone just checked the config
	head, err := r.ahead(ctx, ws.Branch)
	if err != nil || head == "" {
		return false, err
	}
	ref := "refs/heads/" + ws.Branch
	// What Prepare (or the last push) saw of the branch on the remote,
	// kept in the review repository, not in the clone's refs, which the
	// agent can move; empty means the branch must not exist there yet. A
	// push someone made since (another machine, a person) is not
	// replaced.
	lease := r.commit(ctx, reviewSeen+ws.Branch)
	if err := r.push(ctx, head, ref, lease); err != nil {
		return false, fmt.Errorf("push %s: %w", ws.Branch, err)
	}
	ws.settled = head
	if _, err := r.git(ctx, "update-ref", reviewSeen+ws.Branch, head); err != nil {
		return true, fmt.Errorf("push %s: record the pushed commit: %w", ws.Branch, err)
	}
	tracking := "refs/remotes/" + ws.Remote + "/" + ws.Branch
	// Pushing to a URL does not update the remote-tracking branch.
	if err := c.setRef(ctx, tracking, head); err != nil {
		return true, fmt.Errorf("push %s: record the pushed commit: %w", ws.Branch, err)
	}
	if p.opts.SharedBoard {
		if err := c.setRef(ctx, syncedRefs+ws.Branch, head); err != nil {
			return true, fmt.Errorf("push %s: record the pushed commit: %w", ws.Branch, err)
		}
	}
	return true, nil
}

// Remove deletes the worktree of ticket number n, uncommitted changes
// included, and keeps its branch. Removing a worktree that is not there is
// not an error.
func (p *Provider) Remove(ctx context.Context, slug string, n int) error {
	dir := p.WorktreePath(slug, n)
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return nil
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return err
	}
	defer done()
	// A clone the host must not run git in still gets its worktree
	// deleted; git forgets it at the next prune.
	c, cerr := g.openClone(ctx, slug, "")
	if cerr == nil {
		if _, err := c.run(ctx, "worktree", "remove", "--force", dir); err == nil {
			return nil
		}
	}
	removeTree(dir)
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("remove worktree %s#%d: it could not be deleted", slug, n)
	}
	if cerr == nil {
		if _, err := c.run(ctx, "worktree", "prune"); err != nil {
			return fmt.Errorf("remove worktree %s#%d: %w", slug, n, err)
		}
	}
	return nil
}

// Worktrees lists the ticket numbers that have a worktree directory in
// project slug, in increasing order. It reads one directory and runs no git.
func (p *Provider) Worktrees(slug string) ([]int, error) {
	des, err := os.ReadDir(filepath.Join(p.opts.Worktrees, slug))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list worktrees of %s: %w", slug, err)
	}
	var ns []int
	for _, de := range des {
		if n, err := strconv.Atoi(de.Name()); err == nil && de.IsDir() && n > 0 {
			ns = append(ns, n)
		}
	}
	sort.Ints(ns)
	return ns, nil
}

// Head returns the commit the branch points at in the project's clone,
// or "" when the branch does not exist. It runs local git commands on the
// host (the clone's checks and rev-parse), with no network and no sandbox:
// the heartbeat compares it before and after a run to see whether the
// agent committed.
func (p *Provider) Head(ctx context.Context, proj board.Project, branch string) (string, error) {
	g, done, err := p.runtime(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	url, _ := remoteURL(proj.Repo, g.remoteEnv)
	c, err := g.openClone(ctx, proj.Slug, url)
	if err != nil {
		return "", p.hidePaths(fmt.Errorf("read the head of %s: %w", branch, err))
	}
	out, err := c.run(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch+"^{commit}")
	var ge *GitError
	if errors.As(err, &ge) && ge.Code == 1 {
		return "", nil
	}
	if err != nil {
		return "", p.hidePaths(fmt.Errorf("read the head of %s: %w", branch, err))
	}
	return out, nil
}
