package workspace

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// CloseBranch ends the work of ticket n of project slug for good, its
// branch being branch: a variant not chosen (docs/landing.md,
// "Variants"). It removes the ticket's worktree, deletes branch from the
// project's clone and forgets what the review repository keeps of it.
// Only a branch the runtime names for ticket n (BranchName) is deleted;
// the name comes from the board, never from the clone. A branch pushed
// to the project's repository stays there.
func (p *Provider) CloseBranch(ctx context.Context, slug string, n int, branch string) error {
	if branch != "" && !ownBranch(slug, n, branch) {
		return fmt.Errorf("close %s#%d: %q is not a branch Bonsai named for the ticket; delete it yourself", slug, n, branch)
	}
	if err := p.Remove(ctx, slug, n); err != nil {
		return err
	}
	if branch != "" {
		if err := p.deleteBranch(ctx, slug, branch); err != nil {
			return fmt.Errorf("close %s#%d: delete branch %s: %w", slug, n, branch, err)
		}
	}
	return p.ForgetReview(ctx, slug, n, branch)
}

// ownBranch reports whether branch is one BranchName gives ticket n of
// project slug: bonsai/<slug>/<n> or bonsai/<slug>/<n>-<title words>.
func ownBranch(slug string, n int, branch string) bool {
	rest, ok := strings.CutPrefix(branch, "bonsai/"+slug+"/"+strconv.Itoa(n))
	if !ok || strings.Contains(rest, "..") {
		return false
	}
	if rest == "" {
		return true
	}
	words, ok := strings.CutPrefix(rest, "-")
	return ok && words != "" && words == TitleSlug(words)
}

// deleteBranch deletes refs/heads/branch from the clone, if it exists.
func (p *Provider) deleteBranch(ctx context.Context, slug, branch string) error {
	g, done, err := p.runtime(ctx)
	if err != nil {
		return err
	}
	defer done()
	c, err := g.openClone(ctx, slug, "")
	if err != nil {
		return p.hidePaths(err)
	}
	_, err = c.run(ctx, "update-ref", "-d", "refs/heads/"+branch)
	return p.hidePaths(err)
}
