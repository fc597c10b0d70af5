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
// commits its base does not, and reports whether it pushed. It runs in the
// clone with the runtime's credentials (Options.RemoteEnv); the agent never
// sees them. The branch belongs to Bonsai, so a rewritten history replaces
// the remote one, unless the remote branch moved since the last fetch
// (--force-with-lease against origin/<branch>; on a shared board, against
// the commit Prepare or the last push saw). It pushes to the project's
// URL, not to the remote's name, and refuses to push when the clone's
// config has settings that would send the push elsewhere or run a program
// (UnsafeConfigError).
func (p *Provider) Push(ctx context.Context, proj board.Project, ws *Workspace) (pushed bool, err error) {
	defer func() { err = p.hidePaths(err) }()
	if ws.Remote == "" {
		return false, nil
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return false, err
	}
	defer done()
	ref := "refs/heads/" + ws.Branch
	n, err := g.run(ctx, proj.Slug, "rev-list", "--count", ws.Base+".."+ref)
	if err != nil {
		return false, fmt.Errorf("push %s: %w", ws.Branch, err)
	}
	if n == "0" {
		return false, nil
	}
	head, err := g.run(ctx, proj.Slug, "rev-parse", "--verify", ref+"^{commit}")
	if err != nil {
		return false, fmt.Errorf("push %s: %w", ws.Branch, err)
	}
	// What the last fetch saw of the branch on the remote; empty means
	// the branch must not exist there yet.
	tracking := "refs/remotes/" + ws.Remote + "/" + ws.Branch
	leaseRef := tracking
	if p.opts.SharedBoard {
		// On a shared board, what Prepare (or this clone's last push)
		// saw: a fetch of another ticket since may have brought a push
		// from another machine that took the ticket after this run lost
		// its lease, which this push must not replace.
		leaseRef = syncedRefs + ws.Branch
	}
	lease, _ := g.run(ctx, proj.Slug, "rev-parse", "--verify", "--quiet", leaseRef+"^{commit}")
	url, env := remoteURL(proj.Repo, g.remoteEnv)
	if _, err := g.withRemoteEnv(env).remote(ctx, proj.Slug, url, "push", "--quiet", "--no-signed", "--no-follow-tags",
		"--recurse-submodules=no", "--force-with-lease="+ref+":"+lease, "--", url, head+":"+ref); err != nil {
		return false, fmt.Errorf("push %s: %w", ws.Branch, err)
	}
	// Pushing to a URL does not update the remote-tracking branch.
	if _, err := g.run(ctx, proj.Slug, "update-ref", tracking, head); err != nil {
		return true, fmt.Errorf("push %s: record the pushed commit: %w", ws.Branch, err)
	}
	if p.opts.SharedBoard {
		if err := g.setRef(ctx, proj.Slug, syncedRefs+ws.Branch, head); err != nil {
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
	if _, err := os.Stat(p.ClonePath(slug)); err == nil {
		if _, err := g.run(ctx, slug, "worktree", "remove", "--force", dir); err == nil {
			return nil
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove worktree %s#%d: %w", slug, n, err)
	}
	if _, err := os.Stat(p.ClonePath(slug)); err == nil {
		if _, err := g.run(ctx, slug, "worktree", "prune"); err != nil {
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
// or "" when the branch does not exist. It runs one local git command on
// the host, with no network and no sandbox: the heartbeat compares it
// before and after a run to see whether the agent committed.
func (p *Provider) Head(ctx context.Context, proj board.Project, branch string) (string, error) {
	g, done, err := p.runtime(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	out, err := g.run(ctx, proj.Slug, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch+"^{commit}")
	var ge *GitError
	if errors.As(err, &ge) && ge.Code == 1 {
		return "", nil
	}
	if err != nil {
		return "", p.hidePaths(fmt.Errorf("read the head of %s: %w", branch, err))
	}
	return out, nil
}
