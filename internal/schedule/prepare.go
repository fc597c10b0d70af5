package schedule

import (
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// RuleOf returns a schedule's timing as a Rule.
func RuleOf(s board.Schedule) Rule {
	return Rule{Kind: Kind(s.Kind), Expr: s.Expr, Zone: s.TimeZone, Anchor: s.Anchor}
}

// Prepare checks a schedule's timing and title template as of now and
// fills in what follows from them: the anchor of an "every" given none
// (the next whole minute), and NextFire, the first firing after now.
// Every interface that creates or edits a schedule (CLI, web, board tools)
// calls it, so they refuse the same input with the same words.
func Prepare(s board.Schedule, now time.Time) (board.Schedule, error) {
	sc, next, err := Check(RuleOf(s), now)
	if err != nil {
		return s, err
	}
	if _, err := RenderTitle(s.Title, next, sc.Location()); err != nil {
		return s, err
	}
	s.Anchor = sc.Rule().Anchor
	if s.Kind != string(Every) {
		s.Anchor = time.Time{}
	}
	s.NextFire = next
	return s, nil
}
