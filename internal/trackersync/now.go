package trackersync

import (
	"context"
	"errors"
	"fmt"
)

// SyncNow syncs project's tracker at once, as a beat would (a hook's
// delivery says something changed there), and says what it did; a
// failed sync is the error, recorded in the project's sync state as a
// beat's is.
func (s *Syncer) SyncNow(ctx context.Context, project string) (string, error) {
	if p, err := s.opts.Board.Project(ctx, project); err == nil {
		if lim, waiting := s.limited(ctx, p); waiting {
			return "", waitingError(p, lim, s.opts.Now())
		}
	}
	rep := s.SyncTrackers(ctx, project)
	if len(rep.Failures) > 0 {
		return "", errors.New(rep.Failures[0].Error)
	}
	if rep.Trackers == 0 {
		return "", fmt.Errorf("project %s has no tracker to sync, or is archived", project)
	}
	return fmt.Sprintf("synced: %s, %s delivered, %s posted, %s closed", count(rep.Created, "new ticket"),
		count(rep.Delivered, "comment"), count(rep.Posted, "comment"), count(rep.Closed, "ticket")), nil
}

// count is n and the noun, plural when n is not 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
