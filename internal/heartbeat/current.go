package heartbeat

import (
	"context"
	"errors"
	"log/slog"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// currentKeeper brings the default branch into a run's ticket branch
// (tickettool.Config.Update).
type currentKeeper struct {
	ws      *workspace.Workspace
	project board.Project
	store   interface {
		Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error)
	}
	notes ticketNotes
	log   *slog.Logger
}

// update brings the default branch into the run's ticket branch before
// the ticket goes to VERIFICATION: the work a person reviews, and the
// verify command checks, is the work as it would land. A conflict is left
// to the agent, with what to do.
func (k currentKeeper) update(ctx context.Context) ([]string, string, error) {
	changed, err := workspace.Update(ctx, k.ws, k.project.Agent.UpdateStyle)
	var ce *workspace.ConflictError
	if errors.As(err, &ce) {
		k.log.Info("default branch conflicts with the ticket branch", "files", ce.Files)
		help := workspace.ConflictHelp(k.project, ce.Files)
		// Said on the ticket too, once, so that a run that ends without
		// resolving it leaves the next one a conflict task.
		if cs, err := k.store.Comments(ctx, k.notes.ref); err == nil && !conflictPending(cs) {
			k.notes.note(ctx, board.KindFeedback, help)
		}
		return ce.Files, help, nil
	}
	if err != nil {
		return nil, "", err
	}
	if changed {
		k.log.Info("default branch brought into the ticket branch", "style", k.project.Agent.UpdateStyle.String())
	}
	return nil, "", nil
}

// conflictPending reports whether the newest word on a ticket's work is
// the runtime's finding that its branch conflicts with the default branch
// (at landing, land.Lander; or at the move to VERIFICATION, currentKeeper):
// its newest feedback or completion comment is a feedback comment of the
// runtime's. The run is then a conflict task.
func conflictPending(comments []board.Comment) bool {
	for i := len(comments) - 1; i >= 0; i-- {
		switch c := comments[i]; c.Kind {
		case board.KindFeedback:
			return c.AuthorType == board.System
		case board.KindCompletion:
			return false
		}
	}
	return false
}
