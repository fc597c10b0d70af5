package board

import (
	"time"
	"unicode/utf8"
)

// PRState is the state of a pull request (a merge request on GitLab) on
// its forge.
type PRState string

// The pull request states.
const (
	PRNone   PRState = ""
	PROpen   PRState = "open"
	PRMerged PRState = "merged"
	PRClosed PRState = "closed"
)

// Checks is the combined state of a pull request's checks.
type Checks string

// The check states.
const (
	ChecksNone    Checks = ""
	ChecksPending Checks = "pending"
	ChecksSuccess Checks = "success"
	ChecksFailure Checks = "failure"
)

// Landing is how a ticket's work reaches the project's default branch:
// its pull request while it is open, the commit it landed as, and the
// last failure to land it. A ticket has at most one.
type Landing struct {
	// Ref is the ticket.
	Ref Ref `json:"ticket"`
	// Mode is the landing mode as resolved for this ticket: merge, pr or
	// none (never auto).
	Mode LandMode `json:"mode"`
	// Branch is the ticket branch.
	Branch string `json:"branch"`

	// Forge names the forge of the pull request: "github", "gitlab" or
	// "gitea".
	Forge    string  `json:"forge,omitempty"`
	PRNumber int     `json:"prNumber,omitempty"`
	PRURL    string  `json:"prUrl,omitempty"`
	PRState  PRState `json:"prState,omitempty"`
	Checks   Checks  `json:"checks,omitempty"`
	// HeadSHA is the pull request's head commit as last seen.
	HeadSHA string `json:"headSha,omitempty"`
	// ETag is the forge's tag of the pull request as last read, for a
	// conditional request that costs nothing when nothing changed.
	ETag string `json:"-"`
	// ReviewCursor is the forge's cursor of the reviews and comments
	// already given to the ticket.
	ReviewCursor string `json:"-"`

	// Commit is the commit the work landed as on the default branch.
	Commit   string    `json:"commit,omitempty"`
	LandedAt time.Time `json:"landedAt,omitzero"`
	// Error is the last failure to land, with its fix, as the ticket
	// shows it; empty when the last attempt worked.
	Error     string    `json:"error,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Validate reports what is wrong with a landing about to be saved.
func (l Landing) Validate() error {
	if err := ValidateSlug(l.Ref.Project); err != nil {
		return err
	}
	if l.Ref.Number <= 0 {
		return Errorf(EINVALID, "landing of ticket %s: no ticket number", l.Ref)
	}
	switch l.Mode {
	case LandMerge, LandPR, LandNone:
	default:
		return Errorf(EINVALID, "landing of %s: mode %q; use merge, pr or none", l.Ref, string(l.Mode))
	}
	switch l.PRState {
	case PRNone, PROpen, PRMerged, PRClosed:
	default:
		return Errorf(EINVALID, "landing of %s: pull request state %q; use open, merged or closed", l.Ref, string(l.PRState))
	}
	switch l.Checks {
	case ChecksNone, ChecksPending, ChecksSuccess, ChecksFailure:
	default:
		return Errorf(EINVALID, "landing of %s: checks %q; use pending, success or failure", l.Ref, string(l.Checks))
	}
	switch l.Forge {
	case "", "github", "gitlab", "gitea":
	default:
		return Errorf(EINVALID, "landing of %s: forge %q; use github, gitlab or gitea", l.Ref, l.Forge)
	}
	if l.PRNumber < 0 {
		return Errorf(EINVALID, "landing of %s: pull request number %d", l.Ref, l.PRNumber)
	}
	if l.Branch != "" {
		if err := ValidateBranch(l.Branch); err != nil {
			return err
		}
	}
	if !utf8.ValidString(l.Error) || utf8.RuneCountInString(l.Error) > maxLandingError {
		return Errorf(EINVALID, "landing of %s: the error is not valid UTF-8 or longer than %d characters", l.Ref, maxLandingError)
	}
	return nil
}

// maxLandingError caps a landing's error text.
const maxLandingError = 10000

// Unchanged reports whether saving l over old would change nothing: the
// same fields, the landing times equal to the millisecond, UpdatedAt
// aside. Every store uses it to decide whether a save writes (and adds
// an event).
func (l Landing) Unchanged(old Landing) bool {
	if !l.LandedAt.Truncate(time.Millisecond).Equal(old.LandedAt.Truncate(time.Millisecond)) {
		return false
	}
	l.LandedAt, old.LandedAt = time.Time{}, time.Time{}
	l.UpdatedAt, old.UpdatedAt = time.Time{}, time.Time{}
	return l == old
}

// EventData is what a "landing.updated" event records of l.
func (l Landing) EventData() map[string]any {
	return map[string]any{"ref": l.Ref.String(), "mode": l.Mode, "prState": l.PRState, "checks": l.Checks,
		"commit": l.Commit, "failed": l.Error != ""}
}
