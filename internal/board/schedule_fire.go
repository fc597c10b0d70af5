package board

import "time"

// Normal is s with the defaults of a stored schedule filled in (BACKLOG,
// OverlapSkip, no criteria) and its times at the millisecond a store
// keeps.
func (s Schedule) Normal() Schedule {
	if s.StartState == "" {
		s.StartState = Backlog
	}
	if s.Overlap == "" {
		s.Overlap = OverlapSkip
	}
	if s.Criteria == nil {
		s.Criteria = []string{}
	}
	s.Anchor, s.NextFire = toMillis(s.Anchor), toMillis(s.NextFire)
	return s
}

// toMillis is t at the millisecond in UTC; the zero time stays zero.
func toMillis(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}

// CheckDue says whether s, as stored now, still fires at dueAt: not when
// it is paused, will never fire again or fires at another time (another
// beat fired it, or it was changed), which is ECONFLICT.
func (s Schedule) CheckDue(dueAt time.Time) error {
	if s.Paused || s.NextFire.IsZero() || s.NextFire.UnixMilli() != dueAt.UnixMilli() {
		return Errorf(ECONFLICT, "schedule %s/%s is no longer due at %s: another beat fired it, or it was paused or changed",
			s.ProjectSlug, s.Name, dueAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// Check returns f as a store records it: a firing that creates a ticket
// needs the ticket, checked and filled in by NewTicket.
func (f Fire) Check() (Fire, error) {
	if f.Outcome != FiringCreated {
		return f, nil
	}
	if f.Ticket == nil {
		return f, Errorf(EINVALID, "a firing that creates a ticket needs the ticket")
	}
	t, err := NewTicket(*f.Ticket)
	f.Ticket = &t
	return f, err
}
