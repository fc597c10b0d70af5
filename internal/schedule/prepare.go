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

// Patch prepares an edit: s is old with the person's changes applied. It
// checks s as Prepare does and returns the patch to store: every template
// field, and the timing with a new NextFire only when the timing changed
// (so an edit of the title does not move the next firing).
func Patch(old, s board.Schedule, now time.Time) (board.SchedulePatch, error) {
	timing := s.Kind != old.Kind || s.Expr != old.Expr || s.TimeZone != old.TimeZone || !s.Anchor.Equal(old.Anchor)
	if s.Kind == string(Every) && s.Kind != old.Kind && s.Anchor.Equal(old.Anchor) {
		s.Anchor = time.Time{} // a new "every" counts from now
	}
	if timing {
		var err error
		if s, err = Prepare(s, now); err != nil {
			return board.SchedulePatch{}, err
		}
	} else if err := checkTitle(s, now); err != nil {
		return board.SchedulePatch{}, err
	}
	p := board.SchedulePatch{Title: &s.Title, Description: &s.Description, Criteria: &s.Criteria, Priority: &s.Priority,
		StartState: &s.StartState, PreCheck: &s.PreCheck, Overlap: &s.Overlap}
	if timing {
		p.Kind, p.Expr, p.TimeZone, p.Anchor, p.NextFire = &s.Kind, &s.Expr, &s.TimeZone, &s.Anchor, &s.NextFire
	}
	return p, nil
}

// Resume returns the patch that resumes s as of now: its next firing is
// the first after now, so the windows it was paused for do not fire.
func Resume(s board.Schedule, now time.Time) board.SchedulePatch {
	paused, next := false, time.Time{}
	if sc, err := Compile(RuleOf(s)); err == nil {
		if n, ok := sc.Next(now); ok {
			next = n
		}
	}
	return board.SchedulePatch{Paused: &paused, NextFire: &next}
}

// Pause returns the patch that pauses a schedule.
func Pause() board.SchedulePatch {
	paused := true
	return board.SchedulePatch{Paused: &paused}
}

// checkTitle checks s's title template renders, in s's zone.
func checkTitle(s board.Schedule, now time.Time) error {
	loc, err := LoadZone(s.TimeZone)
	if err != nil {
		return err
	}
	_, err = RenderTitle(s.Title, now, loc)
	return err
}
