package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestCheckFirable: a paused schedule is refused with how to resume it, a
// spent one with how to give it a time; an active one fires.
func TestCheckFirable(t *testing.T) {
	t.Parallel()
	s := board.Schedule{ProjectSlug: "demo", Name: "deps", NextFire: time.Now().Add(time.Hour)}
	if err := CheckFirable(s); err != nil {
		t.Errorf("active: %v", err)
	}
	s.Paused = true
	if err := CheckFirable(s); board.ErrorCode(err) != board.EREFUSED || !strings.Contains(err.Error(), "bonsai schedule resume demo deps") {
		t.Errorf("paused: %v", err)
	}
	s.Paused, s.NextFire = false, time.Time{}
	if err := CheckFirable(s); board.ErrorCode(err) != board.EREFUSED || !strings.Contains(err.Error(), "will not fire again") {
		t.Errorf("spent: %v", err)
	}
}
