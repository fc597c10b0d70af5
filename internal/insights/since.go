package insights

import (
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// ParseSince reads a period's start: "all" (or "") for the whole
// history, an age such as "30d", "2w" or "12h" before now, or a date
// "2006-01-02" (midnight UTC).
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return time.Time{}, nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d, nil
	}
	unit := map[byte]time.Duration{'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]]
	n, err := strconv.Atoi(s[:len(s)-1])
	if unit == 0 || err != nil || n < 0 {
		return time.Time{}, board.Errorf(board.EINVALID, "since %q: give an age like 30d, 2w or 12h, a date like 2026-03-01, or all", s)
	}
	return now.Add(-time.Duration(n) * unit).UTC().Truncate(time.Millisecond), nil
}
