package trackersync

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/tracker"
)

// limited reads project p's tracker rate limit: waiting is true while it
// holds, and the sync then asks the tracker nothing (the limit is kept
// across beats, so a beat every minute does not spend a request each on
// a tracker that said to wait an hour).
func (s *Syncer) limited(ctx context.Context, p board.Project) (board.TrackerLimit, bool) {
	lim, err := s.opts.Board.TrackerLimit(ctx, p.Slug)
	if err != nil {
		s.log.Error("read the tracker limit", "project", p.Slug, "err", err)
		return lim, false
	}
	if lim.Waiting(s.opts.Now()) {
		s.log.Info("tracker rate limited: the sync waits", "project", p.Slug, "until", lim.Until)
		return lim, true
	}
	return lim, false
}

// limit keeps a rate-limited failure's wait across beats and returns
// what to add to its message; "" for other failures.
func (s *Syncer) limit(ctx context.Context, p board.Project, err error) string {
	var te *tracker.Error
	if !errors.As(err, &te) || te.Reason != tracker.RateLimited || te.RetryAfter <= 0 {
		return ""
	}
	until := s.opts.Now().Add(te.RetryAfter).UTC()
	_, serr := s.opts.Board.SaveTrackerLimit(ctx, board.TrackerLimit{ProjectSlug: p.Slug, Tracker: p.Agent.Tracker, Until: until,
		Detail: s.opts.Redact(te.Error())})
	if serr != nil {
		s.log.Error("save the tracker limit", "project", p.Slug, "err", serr)
		return ""
	}
	return "; the sync waits until " + until.Format("15:04:05 UTC")
}

// unlimit forgets a limit that has passed, after a sync went through.
func (s *Syncer) unlimit(ctx context.Context, lim board.TrackerLimit) {
	if lim.Until.IsZero() {
		return
	}
	if _, err := s.opts.Board.SaveTrackerLimit(ctx, board.TrackerLimit{ProjectSlug: lim.ProjectSlug}); err != nil {
		s.log.Error("forget the tracker limit", "project", lim.ProjectSlug, "err", err)
	}
}

// waitingError is the error of asking a tracker that said to wait.
func waitingError(p board.Project, lim board.TrackerLimit, now time.Time) error {
	return fmt.Errorf("the %s tracker of %s is rate limited for %s more (until %s): the sync waits and asks nothing before",
		p.Agent.Tracker, p.Slug, lim.Until.Sub(now).Round(time.Second), lim.Until.UTC().Format("15:04:05 UTC"))
}
