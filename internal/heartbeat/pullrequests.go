package heartbeat

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// PullRequests is the pull request side of the pr landing mode
// (docs/forges.md): opening a ticket's pull request when it reaches
// VERIFICATION, and following the open ones on every beat without a model
// request.
type PullRequests interface {
	// UsesPRs reports whether project p lands through pull requests. It
	// makes no request.
	UsesPRs(p board.Project) bool
	// Publish opens or updates the pull request of ticket t, which
	// reached VERIFICATION with its branch pushed. It writes a failure on
	// the ticket itself.
	Publish(ctx context.Context, p board.Project, t board.Ticket) error
	// SyncReviews follows the open pull requests of project (all when
	// ""), with one conditional request each when nothing changed, and
	// moves, returns or blocks their tickets as the forge says.
	SyncReviews(ctx context.Context, project string) (ReviewSync, error)
}

// ReviewSync says what following the open pull requests did in a beat.
type ReviewSync struct {
	Open         int `json:"open"`
	Unchanged    int `json:"unchanged"`
	Merged       int `json:"merged"`
	Returned     int `json:"returned"`
	Closed       int `json:"closed"`
	ChecksFailed int `json:"checksFailed"`
	Errors       int `json:"errors"`
	// Waiting counts pull requests not read because their forge asked to
	// wait (a rate limit's Retry-After).
	Waiting int `json:"waiting,omitempty"`
	// Failures are the pull requests that could not be followed, with
	// the error, for the banner of every page: until they can, their
	// reviews and checks do not reach the ticket.
	Failures []ReviewFailure `json:"failures,omitempty"`
}

// ReviewFailure is a pull request a beat could not follow.
type ReviewFailure struct {
	Ticket string `json:"ticket"` // "demo#3"
	Error  string `json:"error"`
}

// syncReviews runs the review sync of the beat; a failure is logged.
func (h *Heartbeat) syncReviews(ctx context.Context) *ReviewSync {
	if h.opts.PullRequests == nil || h.opts.Ticket != (board.Ref{}) {
		return nil
	}
	rs, err := h.opts.PullRequests.SyncReviews(ctx, h.opts.Project)
	if err != nil {
		h.log.Error("follow pull requests", "err", err)
	}
	if rs.Open > 0 {
		h.log.Info("followed pull requests", "open", rs.Open, "unchanged", rs.Unchanged, "merged", rs.Merged,
			"returned", rs.Returned, "closed", rs.Closed, "errors", rs.Errors)
	}
	return &rs
}

// publish opens or updates the pull request of a ticket the run moved to
// VERIFICATION, once its branch is pushed.
func (r *runState) publish(ctx context.Context, rep *RunReport) {
	prs := r.h.opts.PullRequests
	if prs == nil || rep.MovedTo != board.Verification || rep.PushError != "" || !prs.UsesPRs(r.plan.Project) {
		return
	}
	t, err := r.h.opts.Store.Ticket(ctx, r.plan.Ticket.Ref())
	if err != nil {
		r.log.Error("read ticket for its pull request", "err", err)
		return
	}
	if err := prs.Publish(ctx, r.plan.Project, t); err != nil {
		r.log.Warn("pull request not opened or updated", "err", r.h.opts.Redact(err.Error()))
		rep.PullRequestError = r.h.opts.Redact(err.Error())
	}
}
