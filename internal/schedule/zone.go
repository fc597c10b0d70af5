package schedule

import (
	"strings"
	"time"
	_ "time/tzdata" // zones resolve on machines without zoneinfo

	"github.com/bonsai-run/bonsai/internal/board"
)

// LoadZone resolves an IANA time zone name such as "Europe/Berlin". "Local"
// is refused: a schedule must mean the same on every machine.
func LoadZone(name string) (*time.Location, error) {
	if strings.TrimSpace(name) == "" || name == "Local" {
		return nil, fieldError("timezone", name, "is not an IANA time zone name", `"Europe/Berlin" or "UTC"`)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fieldError("timezone", name, "is not a known IANA time zone name", `"Europe/Berlin" or "UTC"`)
	}
	return loc, nil
}

// fieldError is an invalid-input error naming the field, its value, the
// problem and an example of a good value.
func fieldError(field, value, problem, example string) error {
	return board.Errorf(board.EINVALID, "schedule %s %q %s; for example %s", field, value, problem, example)
}

// civil is a wall-clock time to the minute, held as a UTC time.Time so
// arithmetic on it never meets a DST change.
type civil = time.Time

// toCivil reads t's wall clock in loc, dropping seconds.
func toCivil(t time.Time, loc *time.Location) civil {
	w := t.In(loc)
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), 0, 0, time.UTC)
}

// sameWall reports whether instant t reads as wall-clock c in loc.
func sameWall(t time.Time, c civil, loc *time.Location) bool {
	w := t.In(loc)
	return w.Year() == c.Year() && w.Month() == c.Month() && w.Day() == c.Day() &&
		w.Hour() == c.Hour() && w.Minute() == c.Minute()
}

// instant maps wall-clock c in loc to the moment it happens: the first
// occurrence of a time fall-back repeats, and for a time spring-forward
// skips, the first moment after the gap.
func instant(c civil, loc *time.Location) time.Time {
	guess := c.Unix()
	var offsets []int
	for _, d := range []int64{-86400, -3600, 0, 3600, 86400} {
		_, off := time.Unix(guess+d, 0).In(loc).Zone()
		offsets = append(offsets, off)
	}
	var best time.Time
	smallest := offsets[0]
	for _, off := range offsets {
		smallest = min(smallest, off)
		t := time.Unix(guess-int64(off), 0).UTC()
		if sameWall(t, c, loc) && (best.IsZero() || t.Before(best)) {
			best = t
		}
	}
	if !best.IsZero() {
		return best
	}
	// A gap: the offset before the change (the smallest) puts the time
	// after the change; the zone in force there began at the gap's end.
	after := time.Unix(guess-int64(smallest), 0).In(loc)
	start, _ := after.ZoneBounds()
	if start.IsZero() {
		return after.UTC()
	}
	return start.UTC()
}
