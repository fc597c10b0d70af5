package workspace

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// CloseBranch ends the work of ticket n of project proj for good, its
// branch being branch: a variant not chosen (docs/landing.md,
// "Variants"). It removes the ticket's worktree, deletes branch from the
// project's clone and from the project's repository, and forgets what
// the review repository keeps of it. Only a branch the runtime names for
// ticket n (BranchName) is deleted; the name comes from the board, never
// from the clone. The repository's branch is deleted only where the
// runtime pushed it (or saw it there) and only while it is still at
// that commit: a branch someone pushed to since is kept, and said so.
func (p *Provider) CloseBranch(ctx context.Context, proj board.Project, n int, branch string) error {
	slug := proj.Slug
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
		if err := p.deletePushed(ctx, proj, branch); err != nil {
			return fmt.Errorf("close %s#%d: delete branch %s from the project's repository: %w", slug, n, branch, err)
		}
	}
	return p.ForgetReview(ctx, slug, n, branch)
}

// deletePushed deletes branch from the project's repository when the
// review repository holds its lease (what the runtime last pushed there
// or saw there), with that lease: git refuses when the branch moved.
func (p *Provider) deletePushed(ctx context.Context, proj board.Project, branch string) error {
	if !p.hasReview(proj.Slug) {
		return nil
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return err
	}
	defer done()
	r, err := p.openReview(ctx, g, proj)
	if err != nil || !r.mayHave(reviewSeen+branch) {
		return p.hidePaths(err)
	}
	lease := r.commit(ctx, reviewSeen+branch)
	if lease == "" {
		return nil
	}
	if err := r.push(ctx, "", "refs/heads/"+branch, lease); err != nil {
		return p.hidePaths(fmt.Errorf("%w (it moved since Bonsai pushed it, or the remote refused; it is kept)", err))
	}
	return nil
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
