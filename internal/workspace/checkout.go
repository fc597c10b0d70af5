package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/board"
)

// checkoutDir is the name of the project's checkout under worktrees/<slug>/;
// ticket worktrees are numbers, so it never meets one.
const checkoutDir = "schedule"

// Checkout returns a worktree of the project's default branch as fetched
// now (worktrees/<slug>/schedule, detached, reset and cleaned each time),
// with the project's agent executor (its sandbox setting): where a
// schedule's pre-check runs. What a pre-check leaves there is gone the
// next time. The caller closes it.
func (p *Provider) Checkout(ctx context.Context, proj board.Project) (*Workspace, error) {
	ws, err := p.checkout(ctx, proj)
	return ws, p.hidePaths(err)
}

func (p *Provider) checkout(ctx context.Context, proj board.Project) (*Workspace, error) {
	if err := os.MkdirAll(p.opts.Projects, 0o700); err != nil {
		return nil, fmt.Errorf("checkout: %w", err)
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := p.ensureClone(ctx, g, proj); err != nil {
		return nil, &RepoError{Repo: proj.Repo, Err: err}
	}
	slug, base := proj.Slug, Remote+"/"+proj.DefaultBranch
	if !g.refExists(ctx, slug, base) {
		return nil, &RepoError{Repo: proj.Repo, Err: fmt.Errorf("default branch %q not found in %s", proj.DefaultBranch, proj.Repo)}
	}
	root := filepath.Join(p.opts.Worktrees, slug, checkoutDir)
	if isWorktree(root) {
		if _, err := g.run(ctx, slug, "-C", root, "reset", "--hard", "--quiet", base); err != nil {
			return nil, fmt.Errorf("checkout of %s: %w", slug, err)
		}
		if _, err := g.run(ctx, slug, "-C", root, "clean", "-fdxq"); err != nil {
			return nil, fmt.Errorf("checkout of %s: %w", slug, err)
		}
	} else {
		if err := os.RemoveAll(root); err != nil {
			return nil, err
		}
		if _, err := g.run(ctx, slug, "worktree", "prune"); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(root), 0o700); err != nil {
			return nil, err
		}
		if _, err := g.run(ctx, slug, "worktree", "add", "--quiet", "--detach", root, base); err != nil {
			return nil, fmt.Errorf("checkout of %s: %w", slug, err)
		}
	}
	ws := &Workspace{Root: root, Clone: p.ClonePath(slug), Base: base, Remote: Remote}
	if ws.Exec, err = p.opts.OpenAgent(proj, ws.Root, ws.Clone); err != nil {
		return nil, fmt.Errorf("open the checkout of %s: %w", slug, err)
	}
	return ws, nil
}
