package heartbeat

import (
	"context"
	"log/slog"

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

// syncReviews runs the review sync of a beat of project ("": all); a
// failure is logged. It returns nil when there are no pull requests to
// follow (prs nil) or the beat runs one ticket (oneTicket).
func syncReviews(ctx context.Context, prs PullRequests, project string, oneTicket bool, log *slog.Logger) *ReviewSync {
	if prs == nil || oneTicket {
		return nil
	}
	rs, err := prs.SyncReviews(ctx, project)
	if err != nil {
		log.Error("follow pull requests", "err", err)
	}
	if rs.Open > 0 {
		log.Info("followed pull requests", "open", rs.Open, "unchanged", rs.Unchanged, "merged", rs.Merged,
			"returned", rs.Returned, "closed", rs.Closed, "errors", rs.Errors)
	}
	return &rs
}

// publisher opens or updates the pull request of a ticket a run moved to
// VERIFICATION.
type publisher struct {
	prs   PullRequests // nil: none
	store interface {
		Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
	}
	redact func(string) string
	log    *slog.Logger
}

// publish opens or updates the pull request of ticket ref of proj, which
// the run moved to VERIFICATION (rep), once its branch is pushed.
func (pb publisher) publish(ctx context.Context, proj board.Project, ref board.Ref, rep *RunReport) {
	if pb.prs == nil || rep.MovedTo != board.Verification || rep.PushError != "" || !pb.prs.UsesPRs(proj) {
		return
	}
	t, err := pb.store.Ticket(ctx, ref)
	if err != nil {
		pb.log.Error("read ticket for its pull request", "err", err)
		return
	}
	if err := pb.prs.Publish(ctx, proj, t); err != nil {
		pb.log.Warn("pull request not opened or updated", "err", pb.redact(err.Error()))
		rep.PullRequestError = pb.redact(err.Error())
	}
}
