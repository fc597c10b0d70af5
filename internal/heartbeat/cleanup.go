package heartbeat

import (
	"context"
	"errors"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// removeDone removes the worktrees of tickets that are DONE (or deleted),
// and what the review repository keeps of their reviews, and returns how
// many worktrees it removed. It reads one directory per project and
// touches the database only for tickets that have a worktree.
func (h *Heartbeat) removeDone(ctx context.Context) (int, error) {
	projects, err := h.opts.Store.Projects(ctx, store.ProjectFilter{IncludeArchived: true})
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, p := range projects {
		if h.opts.Project != "" && p.Slug != h.opts.Project {
			continue
		}
		ns, err := h.opts.Workspaces.Worktrees(p.Slug)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, n := range ns {
			ref := board.Ref{Project: p.Slug, Number: n}
			t, err := h.opts.Store.Ticket(ctx, ref)
			if err != nil && board.ErrorCode(err) != board.ENOTFOUND {
				errs = append(errs, err)
				continue
			}
			if err == nil && t.State != board.Done {
				continue
			}
			if err := h.opts.Workspaces.Remove(ctx, p.Slug, n); err != nil {
				errs = append(errs, err)
				continue
			}
			// Its reviewed commits need no keeping any more (a deleted
			// ticket's branch is not known: its last fetch stays).
			if err := h.opts.Workspaces.ForgetReview(ctx, p.Slug, n, t.Branch); err != nil {
				errs = append(errs, err)
			}
			h.log.Info("removed worktree of done ticket", "ticket", ref.String())
			removed++
		}
	}
	return removed, errors.Join(errs...)
}
