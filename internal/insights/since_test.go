package insights

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

func TestParseSince(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, time.March, 31, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"": {}, "all": {}, "30d": now.AddDate(0, 0, -30), "2w": now.AddDate(0, 0, -14), "12h": now.Add(-12 * time.Hour),
		"2026-03-01": time.Date(2026, time.March, 1, 0, 0, 0, 0, time.UTC),
	} {
		got, err := ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"3x", "d", "-1d", "yesterday", "2026-13-01"} {
		if _, err := ParseSince(in, now); board.ErrorCode(err) != board.EINVALID {
			t.Errorf("ParseSince(%q) = %v, want EINVALID", in, err)
		}
	}
}
