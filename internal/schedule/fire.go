package schedule

import "github.com/bonsai-run/bonsai/internal/board"

// CheckFirable refuses to fire s now (a person's Fire now) when it is
// paused or will not fire again, saying what to do instead.
func CheckFirable(s board.Schedule) error {
	if s.Paused {
		return board.Errorf(board.EREFUSED, "schedule %s/%s is paused; resume it first: bonsai schedule resume %s %s", s.ProjectSlug, s.Name, s.ProjectSlug, s.Name)
	}
	if s.NextFire.IsZero() {
		return board.Errorf(board.EREFUSED, "schedule %s/%s will not fire again (its time has passed); edit it to give it a new time", s.ProjectSlug, s.Name)
	}
	return nil
}
