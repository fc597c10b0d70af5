package heartbeat

import (
	"context"
	"errors"
	"log/slog"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// cleanupStore is what removing done worktrees reads: the projects and
// the tickets.
type cleanupStore interface {
	Projects(ctx context.Context, f store.ProjectFilter) ([]board.Project, error)
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
}

// removeDone removes the worktrees of tickets that are DONE (or deleted),
// and what the review repository keeps of their reviews, and returns how
// many worktrees it removed, of project only when not "". It reads one
// directory per project and touches the database only for tickets that
// have a worktree.
func removeDone(ctx context.Context, st cleanupStore, wss Workspaces, project string, log *slog.Logger) (int, error) {
	projects, err := st.Projects(ctx, store.ProjectFilter{IncludeArchived: true})
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, p := range projects {
		if project != "" && p.Slug != project {
			continue
		}
		ns, err := wss.Worktrees(p.Slug)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, n := range ns {
			ref := board.Ref{Project: p.Slug, Number: n}
			t, err := st.Ticket(ctx, ref)
			if err != nil && board.ErrorCode(err) != board.ENOTFOUND {
				errs = append(errs, err)
				continue
			}
			if err == nil && t.State != board.Done {
				continue
			}
			if err := wss.Remove(ctx, p.Slug, n); err != nil {
				errs = append(errs, err)
				continue
			}
			// Its reviewed commits need no keeping any more (a deleted
			// ticket's branch is not known: its last fetch stays).
			if err := wss.ForgetReview(ctx, p.Slug, n, t.Branch); err != nil {
				errs = append(errs, err)
			}
			log.Info("removed worktree of done ticket", "ticket", ref.String())
			removed++
		}
	}
	return removed, errors.Join(errs...)
}
