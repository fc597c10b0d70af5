package heartbeat

import (
	"context"
	"fmt"
	"log/slog"
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

// reviewStore is what recording a review writes: the review, or the
// ticket's return to the agent.
type reviewStore interface {
	Reviews
	MoveTicket(ctx context.Context, ref board.Ref, req board.MoveRequest, authorName string) (board.Ticket, error)
}

// reviewRecorder records the work of a run that moved its ticket to
// VERIFICATION for review.
type reviewRecorder struct {
	workspaces Workspaces
	store      reviewStore
	notes      ticketNotes
	redact     func(string) string
	log        *slog.Logger
}

// record records, once a run moved ticket t of project proj to
// VERIFICATION and ended (the agent's processes are gone), the commits a
// person reviews and approval lands: the ticket branch and the default
// branch as the runtime read them into its own repository
// (workspace.Provider.Review), not the refs the agent can move. A branch
// with no commit beyond the default branch goes back to the agent. It
// reports whether the ticket stays in VERIFICATION.
func (rr reviewRecorder) record(ctx context.Context, proj board.Project, t board.Ticket, branch string) bool {
	// The first review of a project fetches its default branch's history.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reviewTimeout)
	defer cancel()
	rv, err := rr.workspaces.Review(ctx, proj, t.Number, branch)
	if err != nil {
		rr.log.Warn("record the work for review", "err", err)
		rr.notes.note(ctx, board.KindStatus, fmt.Sprintf("The work on `%s` could not be recorded for review, so the Changes page does not show it yet "+
			"and approving records it first:\n\n%s", branch, indented(rr.redact(err.Error()))))
		return true
	}
	if rv.Commits == 0 {
		feedback := fmt.Sprintf("The branch `%s` has no commit beyond `%s` as the runtime fetched it from the project's repository (at %.12s), so there is nothing to review. "+
			"Commit the work on the branch, then move the ticket to VERIFICATION again.", branch, proj.DefaultBranch, rv.Base)
		_, err := rr.store.MoveTicket(ctx, t.Ref(), board.MoveRequest{To: board.InProgress, Actor: board.System, Feedback: feedback}, runtimeAuthor)
		if err != nil {
			rr.log.Error("return a ticket with nothing to review", "err", err)
			return true
		}
		return false
	}
	if _, err := rr.store.SetReview(ctx, board.Review{Ref: t.Ref(), Base: rv.Base, Tip: rv.Tip}); err != nil {
		rr.log.Error("record the work for review", "err", err)
		return true
	}
	return true
}
