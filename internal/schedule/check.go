package schedule

import (
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Check compiles r as of now (an Every rule without an anchor starts now)
// and returns it with its first firing. An At time that is not after now
// is refused, and so is a rule that never fires.
func Check(r Rule, now time.Time) (*Schedule, time.Time, error) {
	if r.Kind == Every && r.Anchor.IsZero() {
		r.Anchor = now.Truncate(time.Minute).UTC()
		if !r.Anchor.After(now) {
			r.Anchor = r.Anchor.Add(time.Minute)
		}
	}
	s, err := Compile(r)
	if err != nil {
		return nil, time.Time{}, err
	}
	next, ok := s.Next(now)
	if !ok {
		if r.Kind == At {
			return nil, time.Time{}, fieldError("at", r.Expr, "is in the past; give a later time", `"`+now.In(s.loc).Add(time.Hour).Format("2006-01-02 15:04")+`"`)
		}
		return nil, time.Time{}, board.Errorf(board.EINVALID, "schedule cron %q never fires; for example \"0 9 * * 1\"", r.Expr)
	}
	return s, next, nil
}
