package trackersync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	lim, _ := s.opts.Board.TrackerLimit(ctx, p.Slug) // keeps the login
	lim.ProjectSlug, lim.Tracker, lim.Until, lim.Detail = p.Slug, p.Agent.Tracker, until, s.opts.Redact(te.Error())
	_, serr := s.opts.Board.SaveTrackerLimit(ctx, lim)
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
	lim.Until, lim.Detail = time.Time{}, ""
	if _, err := s.opts.Board.SaveTrackerLimit(ctx, lim); err != nil {
		s.log.Error("forget the tracker limit", "project", lim.ProjectSlug, "err", err)
	}
}

// waitingError is the error of asking a tracker that said to wait.
func waitingError(p board.Project, lim board.TrackerLimit, now time.Time) error {
	return fmt.Errorf("the %s tracker of %s is rate limited for %s more (until %s): the sync waits and asks nothing before",
		p.Agent.Tracker, p.Slug, lim.Until.Sub(now).Round(time.Second), lim.Until.UTC().Format("15:04:05 UTC"))
}

// tokenSum names a token without giving it away: the first 16 hex digits
// of its SHA-256.
func tokenSum(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:8])
}

// identify reads the token's own login once per token (the forges' GET
// /user, Linear's viewer, Jira's /myself) and keeps it with the limit, so that from the next beat on only
// that account's marked comments are Bonsai's (until then all are, the
// safe way); a later beat with the same token asks nothing.
// A token that may not read its user (Gitea without read:user) is
// remembered as such: its marked comments stay Bonsai's, the safe way.
func (s *Syncer) identify(ctx context.Context, p board.Project, lim board.TrackerLimit) board.TrackerLimit {
	c, err := s.settings(p)
	if err != nil || lim.TokenSum == tokenSum(c.o.Token) {
		return lim
	}
	tr, err := s.client(c)
	if err != nil {
		return lim
	}
	id, ok := tr.(tracker.Identifier)
	if !ok {
		return lim
	}
	login, err := id.Self(ctx)
	if err != nil {
		s.log.Warn("read the tracker token's own login; any comment carrying Bonsai's marker is taken as Bonsai's",
			"project", p.Slug, "err", s.opts.Redact(err.Error()))
		if te := (*tracker.Error)(nil); errors.As(err, &te) && (te.Reason == tracker.Unavailable || te.Reason == tracker.RateLimited) {
			return lim // asked again next beat
		}
	}
	lim.ProjectSlug, lim.Tracker, lim.Login, lim.TokenSum = p.Slug, p.Agent.Tracker, login, tokenSum(c.o.Token)
	if _, err := s.opts.Board.SaveTrackerLimit(ctx, lim); err != nil {
		s.log.Error("save the tracker token's login", "project", p.Slug, "err", err)
	}
	return lim
}
