package heartbeat

import (
	"context"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// reviewTimeout bounds recording a ticket's work for review, which
// fetches from the project's repository.
const reviewTimeout = 10 * time.Minute

// Reviews records what a person reviews of a ticket's work.
type Reviews interface {
	// SetReview records the reviewed commits of a ticket.
	SetReview(ctx context.Context, r board.Review) (board.Review, error)
}

// recordReview records, once a run moved its ticket to VERIFICATION and
// ended (the agent's processes are gone), the commits a person reviews
// and approval lands: the ticket branch and the default branch as the
// runtime read them into its own repository (workspace.Provider.Review),
// not the refs the agent can move. A branch with no commit beyond the
// default branch goes back to the agent. It reports whether the ticket
// stays in VERIFICATION.
func (r *runState) recordReview(ctx context.Context) bool {
	h, ref, proj := r.h, r.plan.Ticket.Ref(), r.plan.Project
	// The first review of a project fetches its default branch's history.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reviewTimeout)
	defer cancel()
	rv, err := h.opts.Workspaces.Review(ctx, proj, r.plan.Ticket.Number, r.ws.Branch)
	if err != nil {
		r.log.Warn("record the work for review", "err", err)
		r.note(ctx, board.KindStatus, fmt.Sprintf("The work on `%s` could not be recorded for review, so the Changes page does not show it yet "+
			"and approving records it first:\n\n%s", r.ws.Branch, indented(h.opts.Redact(err.Error()))))
		return true
	}
	if rv.Commits == 0 {
		feedback := fmt.Sprintf("The branch `%s` has no commit beyond `%s` as the runtime fetched it from the project's repository (at %.12s), so there is nothing to review. "+
			"Commit the work on the branch, then move the ticket to VERIFICATION again.", r.ws.Branch, proj.DefaultBranch, rv.Base)
		_, err := h.opts.Store.MoveTicket(ctx, ref, board.MoveRequest{To: board.InProgress, Actor: board.System, Feedback: feedback}, runtimeAuthor)
		if err != nil {
			r.log.Error("return a ticket with nothing to review", "err", err)
			return true
		}
		return false
	}
	if _, err := h.opts.Store.SetReview(ctx, board.Review{Ref: ref, Base: rv.Base, Tip: rv.Tip}); err != nil {
		r.log.Error("record the work for review", "err", err)
		return true
	}
	return true
}
