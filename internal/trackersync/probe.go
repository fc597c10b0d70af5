package trackersync

import (
	"context"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/tracker"
)

// Probe checks project p's tracker token with the sync's own conditional
// list, given the validator the last sync kept: on GitHub and GitLab an
// unchanged list is a 304, which GitHub does not count against the rate
// limit; on the others one page. It returns what it found, in one line,
// and an error (a *tracker.Error naming the fix) when the token or the
// query is refused.
func (s *Syncer) Probe(ctx context.Context, p board.Project) (string, error) {
	if lim, waiting := s.limited(ctx, p); waiting {
		return waitingError(p, lim, s.opts.Now()).Error() + " (" + lim.Detail + ")", nil
	}
	tr, q, err := s.Open(p)
	if err != nil {
		return "", err
	}
	st, err := s.opts.Board.TrackerSync(ctx, p.Slug)
	if err != nil {
		return "", err
	}
	v := st.Validator
	if st.Query != queryKey(p) {
		v = ""
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	l, err := tr.List(ctx, q, v)
	if err != nil {
		return "", err
	}
	what := fmt.Sprintf("%d matching open issues", len(l.Issues))
	if l.NotModified {
		what = "the issue list is as the last sync left it"
	}
	if st.Failures > 0 {
		what += fmt.Sprintf("; the last %d syncs failed: %s", st.Failures, st.Error)
	}
	return what, nil
}

// Fix is a tracker error's fix, "" for other errors.
func Fix(err error) string {
	if e, ok := err.(*tracker.Error); ok {
		return e.Fix()
	}
	return ""
}
