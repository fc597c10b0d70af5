package schedule

import (
	"strconv"
	"strings"
	"time"

	"github.com/adhocore/gronx"
)

// Kind is how a schedule's times are given.
type Kind string

// The kinds of schedule.
const (
	Cron  Kind = "cron"  // a cron expression in the schedule's time zone
	Every Kind = "every" // a duration from an anchor
	At    Kind = "at"    // one time
)

// Rule is a schedule's timing as stored: its kind, expression, time zone
// and, for Every, the anchor its intervals count from.
type Rule struct {
	Kind Kind
	// Expr is the cron expression ("0 9 * * 1", "@daily"), the interval
	// ("90m", "2h", "1d", "7d") or the time ("2026-12-01 09:00", read in
	// Zone, or RFC 3339 with an offset).
	Expr string
	// Zone is an IANA time zone name.
	Zone string
	// Anchor is the first firing of an Every rule; its intervals count from
	// it. Zero means "now" to Check.
	Anchor time.Time
}

// Schedule is a compiled Rule.
type Schedule struct {
	rule  Rule
	loc   *time.Location
	segs  string        // cron: the normalised expression
	step  time.Duration // every: an interval shorter than a day, in elapsed time
	days  int           // every: whole days, stepped on the wall clock
	at    time.Time     // at: the instant
	wallA civil         // every (days): the anchor's wall clock
}

// MinInterval is the shortest time between two firings.
const MinInterval = time.Minute

// Compile checks r and prepares it for Next. Errors are board EINVALID
// errors naming the field and showing an example.
func Compile(r Rule) (*Schedule, error) {
	loc, err := LoadZone(r.Zone)
	if err != nil {
		return nil, err
	}
	s := &Schedule{rule: r, loc: loc}
	expr := strings.TrimSpace(r.Expr)
	switch r.Kind {
	case Cron:
		if err := checkCron(expr); err != nil {
			return nil, err
		}
		s.segs = expr
	case Every:
		if err := s.parseEvery(expr); err != nil {
			return nil, err
		}
		if s.rule.Anchor.IsZero() {
			return nil, fieldError("every", expr, "has no anchor", `an anchor such as "2026-12-01 09:00"`)
		}
		s.wallA = toCivil(s.rule.Anchor, loc)
	case At:
		t, err := ParseTime(expr, loc)
		if err != nil {
			return nil, fieldError("at", expr, "is not a time", `"2026-12-01 09:00" or "2026-12-01T09:00:00+01:00"`)
		}
		s.at = t
	default:
		return nil, fieldError("kind", string(r.Kind), "is not a schedule kind", `"cron", "every" or "at"`)
	}
	return s, nil
}

// Rule returns the rule s was compiled from.
func (s *Schedule) Rule() Rule { return s.rule }

// Location returns the schedule's time zone.
func (s *Schedule) Location() *time.Location { return s.loc }

// checkCron accepts five fields or a name; gronx's six- and seven-field
// forms (seconds, years) and @everysecond fire too often or are not cron.
func checkCron(expr string) error {
	const example = `"0 9 * * 1" (Mondays at 09:00) or "@daily"`
	if strings.HasPrefix(expr, "@") {
		switch strings.ToLower(expr) {
		case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@hourly",
			"@5minutes", "@10minutes", "@15minutes", "@30minutes":
			return nil
		}
		return fieldError("cron", expr, "is not a known name (@yearly, @monthly, @weekly, @daily, @hourly)", example)
	}
	if n := len(strings.Fields(expr)); n != 5 {
		return fieldError("cron", expr, "needs 5 fields (minute hour day-of-month month day-of-week), got "+strconv.Itoa(n)+"; a seconds field is refused: schedules fire at most once a minute", example)
	}
	if !gronx.IsValid(expr) {
		return fieldError("cron", expr, "is not a valid cron expression", example)
	}
	return nil
}

// parseEvery reads "90m", "2h", "1d", "7d": whole days step on the wall
// clock (09:00 stays 09:00 across DST), shorter intervals in elapsed time.
func (s *Schedule) parseEvery(expr string) error {
	const example = `"30m", "2h" or "1d"`
	if d, ok := strings.CutSuffix(expr, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 1 {
			return fieldError("every", expr, "is not a whole number of days", example)
		}
		s.days = n
		return nil
	}
	d, err := time.ParseDuration(expr)
	if err != nil {
		return fieldError("every", expr, "is not a duration", example)
	}
	if d < MinInterval {
		return fieldError("every", expr, "fires more often than once a minute", example)
	}
	s.step = d
	return nil
}

// ParseTime reads a time given as RFC 3339 (with its own offset) or as a
// wall-clock time in loc ("2026-12-01 09:00", "2026-12-01T09:00",
// seconds optional). A wall-clock time is mapped like a cron time: one
// skipped by DST becomes the end of the gap, a repeated one its first
// occurrence.
func ParseTime(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	var err error
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
		var t time.Time
		if t, err = time.Parse(layout, s); err == nil {
			return instant(t.Truncate(time.Minute), loc), nil
		}
	}
	return time.Time{}, err
}

// Next returns the first firing strictly after after, and false when there
// is none (an At time that has passed, or a cron expression gronx cannot
// satisfy).
func (s *Schedule) Next(after time.Time) (time.Time, bool) {
	switch s.rule.Kind {
	case At:
		return s.at, s.at.After(after)
	case Every:
		if s.days > 0 {
			return s.nextDays(after), true
		}
		return s.nextStep(after), true
	}
	return s.nextCron(after)
}

// nextCron asks gronx for wall-clock matches after after's wall clock and
// returns the first whose instant is after after.
func (s *Schedule) nextCron(after time.Time) (time.Time, bool) {
	c := toCivil(after, s.loc)
	for range 64 {
		n, err := gronx.NextTickAfter(s.segs, c, false)
		if err != nil || !n.After(c) {
			return time.Time{}, false
		}
		c = n
		if t := instant(c, s.loc); t.After(after) {
			return t, true
		}
	}
	return time.Time{}, false
}

// nextStep counts whole intervals from the anchor in elapsed time.
func (s *Schedule) nextStep(after time.Time) time.Time {
	a := s.rule.Anchor
	if a.After(after) {
		return a.UTC()
	}
	k := after.Sub(a)/s.step + 1
	return a.Add(k * s.step).UTC()
}

// nextDays counts whole days from the anchor's wall clock.
func (s *Schedule) nextDays(after time.Time) time.Time {
	a := s.rule.Anchor
	if a.After(after) {
		return a.UTC()
	}
	days := int(toCivil(after, s.loc).Sub(s.wallA).Hours()/24) / s.days * s.days
	for k := max(days-s.days, 0); ; k += s.days {
		if t := instant(s.wallA.AddDate(0, 0, k), s.loc); t.After(after) {
			return t
		}
	}
}
