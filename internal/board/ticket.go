package board

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Ticket is a unit of work on a project's board.
type Ticket struct {
	ID          string    `json:"id"`
	ProjectID   string    `json:"projectId"`
	ProjectSlug string    `json:"project"`
	Number      int       `json:"number"` // per project: 1, 2, 3…
	Title       string    `json:"title"`
	Description string    `json:"description"` // Markdown
	Criteria    []string  `json:"criteria"`    // acceptance criteria, in order
	Plan        string    `json:"plan"`        // Markdown, written by the agent in RESEARCH
	State       State     `json:"state"`
	SubState    SubState  `json:"subState"`
	Priority    int       `json:"priority"` // 0 urgent … 4 none
	Branch      string    `json:"branch"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// Ref returns the ticket's reference, e.g. "demo#12".
func (t Ticket) Ref() Ref { return Ref{Project: t.ProjectSlug, Number: t.Number} }

// Priorities, from most to least urgent.
const (
	PriorityUrgent = 0
	PriorityHigh   = 1
	PriorityMedium = 2
	PriorityLow    = 3
	PriorityNone   = 4
)

// DefaultPriority is the priority of a ticket created without one.
const DefaultPriority = PriorityMedium

// PriorityName returns the name of priority p ("urgent", "high", …).
func PriorityName(p int) string {
	switch p {
	case PriorityUrgent:
		return "urgent"
	case PriorityHigh:
		return "high"
	case PriorityMedium:
		return "medium"
	case PriorityLow:
		return "low"
	case PriorityNone:
		return "none"
	}
	return strconv.Itoa(p)
}

// Validate reports what is wrong with a ticket's fields.
func (t Ticket) Validate() error {
	if err := ValidateTitle(t.Title); err != nil {
		return err
	}
	if err := ValidatePriority(t.Priority); err != nil {
		return err
	}
	if len(t.Description) > MaxDescription {
		return Errorf(EINVALID, "description is %d bytes; the limit is %d", len(t.Description), MaxDescription)
	}
	if len(t.Plan) > MaxDescription {
		return Errorf(EINVALID, "plan is %d bytes; the limit is %d", len(t.Plan), MaxDescription)
	}
	if err := ValidateCriteria(t.Criteria); err != nil {
		return err
	}
	if !t.State.Valid() {
		return Errorf(EINVALID, "unknown state %q", t.State)
	}
	if !t.SubState.Valid() {
		return Errorf(EINVALID, "unknown sub-state %q", t.SubState)
	}
	return nil
}

// Ref names a ticket as "<project slug>#<number>".
type Ref struct {
	Project string
	Number  int
}

// String returns "slug#n".
func (r Ref) String() string { return fmt.Sprintf("%s#%d", r.Project, r.Number) }

// ParseRef parses "slug#n".
func ParseRef(s string) (Ref, error) {
	slug, num, ok := strings.Cut(s, "#")
	if !ok {
		return Ref{}, Errorf(EINVALID, "ticket reference %q must look like <project>#<number>, e.g. demo#12", s)
	}
	if err := ValidateSlug(slug); err != nil {
		return Ref{}, err
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return Ref{}, Errorf(EINVALID, "ticket number in %q must be a positive whole number", s)
	}
	return Ref{Project: slug, Number: n}, nil
}

// CheckNew reports what is wrong with a ticket a person is creating: its
// fields must be valid, and it starts in BACKLOG, or directly in RESEARCH or
// IN_PROGRESS when it is handed to the agent at once.
func CheckNew(t Ticket) error {
	if err := t.Validate(); err != nil {
		return err
	}
	switch t.State {
	case Backlog, Research, InProgress:
	default:
		return Errorf(EINVALID, "a new ticket starts in BACKLOG, RESEARCH or IN_PROGRESS, not %s", t.State)
	}
	if t.SubState != SubNone {
		return Errorf(EINVALID, "a new ticket has no sub-state; it cannot start %s", t.SubState)
	}
	return nil
}

// NewTicket returns t as a store records a new ticket: BACKLOG when no
// state is given, an empty criteria list rather than none, and checked by
// CheckNew. Every store calls it, so the start rules live here once.
func NewTicket(t Ticket) (Ticket, error) {
	if t.State == "" {
		t.State = Backlog
	}
	if t.Criteria == nil {
		t.Criteria = []string{}
	}
	return t, CheckNew(t)
}

// Review is what a person reviews of a ticket's work and what approving
// it lands: the commits of its branch the runtime recorded, read into a
// repository of its own, when the ticket reached VERIFICATION
// (docs/landing.md). A ticket without one has nothing recorded.
type Review struct {
	Ref Ref `json:"ref"`
	// Base is the default branch's commit the work is compared with.
	Base string `json:"base"`
	// Tip is the reviewed commit of the ticket branch.
	Tip string `json:"tip"`
	// RecordedAt is when the runtime recorded them.
	RecordedAt time.Time `json:"recordedAt"`
}

// Validate reports what is wrong with a review record: both commits are
// full hexadecimal object names.
func (r Review) Validate() error {
	for _, c := range []struct{ name, v string }{{"base", r.Base}, {"tip", r.Tip}} {
		if !IsObjectName(c.v) {
			return Errorf(EINVALID, "review %s %q is not a full commit id", c.name, c.v)
		}
	}
	return nil
}

// IsObjectName reports whether s is a full SHA-1 or SHA-256 object name:
// 40 or 64 lowercase hex digits.
func IsObjectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
