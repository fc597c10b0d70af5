package workspace

import (
	"context"
	"fmt"
	"os"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Checkout clones the project once, fetches, and returns its clone as a
// workspace with the project's agent executor (its sandbox setting): where
// a schedule's pre-check runs, on the branch the clone has checked out.
// The caller closes it.
func (p *Provider) Checkout(ctx context.Context, proj board.Project) (*Workspace, error) {
	if err := os.MkdirAll(p.opts.Projects, 0o700); err != nil {
		return nil, fmt.Errorf("checkout: %w", err)
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := p.ensureClone(ctx, g, proj); err != nil {
		return nil, p.hidePaths(&RepoError{Repo: proj.Repo, Err: err})
	}
	clone := p.ClonePath(proj.Slug)
	ws := &Workspace{Root: clone, Clone: clone, Remote: Remote, Base: Remote + "/" + proj.DefaultBranch}
	if ws.Exec, err = p.opts.OpenAgent(proj, clone, clone); err != nil {
		return nil, p.hidePaths(fmt.Errorf("open the clone of %s: %w", proj.Slug, err))
	}
	return ws, nil
}
