package heartbeat

import (
	"context"
	"errors"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// modelNamer is implemented by workspaces that name the run's model on
// the agent's commits (workspace.Provider's commit-msg hook).
type modelNamer interface {
	NameModel(slug, model string) error
}

// keepCurrent brings the default branch into the run's ticket branch
// before the ticket goes to VERIFICATION (tickettool.Config.Update): the
// work a person reviews, and the verify command checks, is the work as
// it would land. A conflict is left to the agent, with what to do.
func (r *runState) keepCurrent(ctx context.Context) ([]string, string, error) {
	changed, err := workspace.Update(ctx, r.ws, r.plan.Project.Agent.UpdateStyle)
	var ce *workspace.ConflictError
	if errors.As(err, &ce) {
		r.log.Info("default branch conflicts with the ticket branch", "files", ce.Files)
		help := workspace.ConflictHelp(r.plan.Project, ce.Files)
		// Said on the ticket too, once, so that a run that ends without
		// resolving it leaves the next one a conflict task.
		if cs, err := r.h.opts.Store.Comments(ctx, r.plan.Ticket.Ref()); err == nil && !conflictPending(cs) {
			r.note(ctx, board.KindFeedback, help)
		}
		return ce.Files, help, nil
	}
	if err != nil {
		return nil, "", err
	}
	if changed {
		r.log.Info("default branch brought into the ticket branch", "style", r.plan.Project.Agent.UpdateStyle.String())
	}
	return nil, "", nil
}

// conflictPending reports whether the newest word on a ticket's work is
// the runtime's finding that its branch conflicts with the default branch
// (at landing, land.Lander; or at the move to VERIFICATION, keepCurrent):
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
