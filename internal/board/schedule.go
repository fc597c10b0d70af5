package board

import (
	"strings"
	"time"
	"unicode/utf8"
)

// The schedule events.
const (
	EventScheduleCreated EventType = "schedule.created"
	EventScheduleUpdated EventType = "schedule.updated"
	EventScheduleDeleted EventType = "schedule.deleted"
	// EventScheduleFired records one firing: a ticket created, or the
	// firing skipped (overlap, or the pre-check said not to wake).
	EventScheduleFired EventType = "schedule.fired"
	// EventScheduleFailed records a pre-check that failed; the first of a
	// streak notifies a person.
	EventScheduleFailed EventType = "schedule.failed"
)

// Schedule is a ticket template that fires on time (docs/schedules.md).
type Schedule struct {
	ID          string `json:"id"`
	ProjectSlug string `json:"project"`
	// Name is unique in its project: lower-case letters, digits and '-'.
	Name string `json:"name"`
	// Kind is "cron", "every" or "at"; Expr its expression, read in
	// TimeZone; Anchor the first firing an "every" counts from.
	Kind     string    `json:"kind"`
	Expr     string    `json:"expr"`
	TimeZone string    `json:"timezone"`
	Anchor   time.Time `json:"anchor,omitzero"`
	// The ticket template. Title may hold placeholders ({date}, {week}...).
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Criteria    []string `json:"criteria"`
	Priority    int      `json:"priority"`
	StartState  State    `json:"startState"`
	// PreCheck is a shell command run in the project's workspace before a
	// firing; "" is none.
	PreCheck string  `json:"preCheck,omitempty"`
	Overlap  Overlap `json:"overlap"`
	Paused   bool    `json:"paused"`
	// NextFire is when it fires next; zero when it never will (an "at"
	// that fired).
	NextFire time.Time `json:"nextFire,omitzero"`
	// Failures counts the pre-check failures in a row; LastError is the
	// newest one's message.
	Failures  int    `json:"failures"`
	LastError string `json:"lastError,omitempty"`
	// LastTicket is the number of the newest ticket it created (0: none)
	// and LastTicketState that ticket's state ("" when deleted).
	LastTicket      int       `json:"lastTicket,omitempty"`
	LastTicketState State     `json:"lastTicketState,omitempty"`
	CreatedBy       Actor     `json:"createdBy"`
	CreatedAt       time.Time `json:"createdAt"`
	UpdatedAt       time.Time `json:"updatedAt"`
}

// Overlap says what a firing does while the schedule's previous ticket is
// not DONE.
type Overlap string

// The overlap rules.
const (
	OverlapSkip   Overlap = "skip"   // skip this firing (the default)
	OverlapAlways Overlap = "always" // create another ticket anyway
)

// ParseOverlap reads an overlap rule; "" is skip.
func ParseOverlap(s string) (Overlap, error) {
	switch Overlap(s) {
	case "", OverlapSkip:
		return OverlapSkip, nil
	case OverlapAlways:
		return OverlapAlways, nil
	}
	return "", Errorf(EINVALID, "overlap %q: want skip (no new ticket while the previous one is not DONE) or always", s)
}

// Overlaps reports whether a firing now finds the previous ticket still
// open, so an OverlapSkip schedule skips it.
func (s Schedule) Overlaps() bool {
	return s.LastTicket != 0 && s.LastTicketState != "" && s.LastTicketState != Done
}

// Limits of a schedule's fields.
const (
	MaxScheduleName = 64
	MaxPreCheck     = 4096
)

// ValidateScheduleName checks a schedule's name.
func ValidateScheduleName(name string) error {
	if name == "" || len(name) > MaxScheduleName || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" ||
		strings.HasPrefix(name, "-") {
		return Errorf(EINVALID, "schedule name %q: use 1 to %d lower-case letters, digits and '-', such as \"weekly-deps\"", name, MaxScheduleName)
	}
	return nil
}

// Validate checks the fields a store keeps; the timing (kind, expression,
// zone) is checked by internal/schedule, which computes NextFire.
func (s Schedule) Validate() error {
	if err := ValidateScheduleName(s.Name); err != nil {
		return err
	}
	switch s.Kind {
	case "cron", "every", "at":
	default:
		return Errorf(EINVALID, "schedule kind %q: want cron, every or at", s.Kind)
	}
	if strings.TrimSpace(s.Expr) == "" || strings.TrimSpace(s.TimeZone) == "" {
		return Errorf(EINVALID, "schedule %s has no %s expression or time zone", s.Name, s.Kind)
	}
	if err := validateText("title", s.Title, MaxTitle); err != nil {
		return err
	}
	if len(s.Description) > MaxDescription {
		return Errorf(EINVALID, "description is %d bytes; the limit is %d", len(s.Description), MaxDescription)
	}
	if err := ValidateCriteria(s.Criteria); err != nil {
		return err
	}
	if err := ValidatePriority(s.Priority); err != nil {
		return err
	}
	switch s.StartState {
	case Backlog, Research, InProgress:
	default:
		return Errorf(EINVALID, "start state %q: a schedule's tickets start in BACKLOG, RESEARCH or IN_PROGRESS", s.StartState)
	}
	if len(s.PreCheck) > MaxPreCheck || !utf8.ValidString(s.PreCheck) || strings.ContainsRune(s.PreCheck, 0) {
		return Errorf(EINVALID, "pre-check: at most %d bytes of text", MaxPreCheck)
	}
	if _, err := ParseOverlap(string(s.Overlap)); err != nil {
		return err
	}
	return nil
}

// SchedulePatch changes the fields that are set. A change of timing
// (Kind, Expr, TimeZone, Anchor) comes with the NextFire it gives.
type SchedulePatch struct {
	Kind        *string    `json:"kind,omitempty"`
	Expr        *string    `json:"expr,omitempty"`
	TimeZone    *string    `json:"timezone,omitempty"`
	Anchor      *time.Time `json:"anchor,omitempty"`
	Title       *string    `json:"title,omitempty"`
	Description *string    `json:"description,omitempty"`
	Criteria    *[]string  `json:"criteria,omitempty"`
	Priority    *int       `json:"priority,omitempty"`
	StartState  *State     `json:"startState,omitempty"`
	PreCheck    *string    `json:"preCheck,omitempty"`
	Overlap     *Overlap   `json:"overlap,omitempty"`
	Paused      *bool      `json:"paused,omitempty"`
	NextFire    *time.Time `json:"nextFire,omitempty"`
}

// Apply returns s with the patch's fields set, and the names of the fields
// that changed.
func (p SchedulePatch) Apply(s Schedule) (Schedule, []string) {
	var changed []string
	set := func(name string, ok bool) {
		if ok {
			changed = append(changed, name)
		}
	}
	if p.Kind != nil {
		set("kind", s.Kind != *p.Kind)
		s.Kind = *p.Kind
	}
	if p.Expr != nil {
		set("expr", s.Expr != *p.Expr)
		s.Expr = *p.Expr
	}
	if p.TimeZone != nil {
		set("timezone", s.TimeZone != *p.TimeZone)
		s.TimeZone = *p.TimeZone
	}
	if p.Anchor != nil {
		set("anchor", !s.Anchor.Equal(*p.Anchor))
		s.Anchor = *p.Anchor
	}
	if p.Title != nil {
		set("title", s.Title != *p.Title)
		s.Title = *p.Title
	}
	if p.Description != nil {
		set("description", s.Description != *p.Description)
		s.Description = *p.Description
	}
	if p.Criteria != nil {
		set("criteria", strings.Join(s.Criteria, "\x00") != strings.Join(*p.Criteria, "\x00") || len(s.Criteria) != len(*p.Criteria))
		s.Criteria = *p.Criteria
	}
	if p.Priority != nil {
		set("priority", s.Priority != *p.Priority)
		s.Priority = *p.Priority
	}
	if p.StartState != nil {
		set("startState", s.StartState != *p.StartState)
		s.StartState = *p.StartState
	}
	if p.PreCheck != nil {
		set("preCheck", s.PreCheck != *p.PreCheck)
		s.PreCheck = *p.PreCheck
	}
	if p.Overlap != nil {
		set("overlap", s.Overlap != *p.Overlap)
		s.Overlap = *p.Overlap
	}
	if p.Paused != nil {
		set("paused", s.Paused != *p.Paused)
		s.Paused = *p.Paused
	}
	if p.NextFire != nil {
		set("nextFire", !s.NextFire.Equal(*p.NextFire))
		s.NextFire = *p.NextFire
	}
	return s, changed
}

// FiringOutcome is what one firing did.
type FiringOutcome string

// The firing outcomes.
const (
	FiringCreated FiringOutcome = "created" // a ticket was created
	FiringOverlap FiringOutcome = "overlap" // skipped: the previous ticket is not DONE
	FiringAsleep  FiringOutcome = "asleep"  // skipped: the pre-check said wake:false
	FiringFailed  FiringOutcome = "failed"  // the pre-check failed; retried after a backoff
)

// Firing is one firing of a schedule, as its history shows it.
type Firing struct {
	ID         int64         `json:"id"`
	ScheduleID string        `json:"scheduleId"`
	DueAt      time.Time     `json:"dueAt"`
	FiredAt    time.Time     `json:"firedAt"`
	Outcome    FiringOutcome `json:"outcome"`
	// Ticket is the created ticket's number, 0 when none.
	Ticket int    `json:"ticket,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Fire is one firing for a store to record: the schedule's NextFire as
// read (DueAt: the store fires only while it still holds), the next time
// (zero for never), the outcome and, for FiringCreated, the ticket.
type Fire struct {
	ScheduleID string
	DueAt      time.Time
	Next       time.Time
	Outcome    FiringOutcome
	Ticket     *Ticket
	Detail     string
}

// PreCheckBackoff is how long a schedule waits after its nth pre-check
// failure in a row (n from 1): 30 s, 1 min, 5 min, 15 min, then 60 min.
func PreCheckBackoff(n int) time.Duration {
	steps := []time.Duration{30 * time.Second, time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour}
	if n < 1 {
		n = 1
	}
	return steps[min(n, len(steps))-1]
}
