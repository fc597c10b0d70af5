package tracker

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// Reason classifies a tracker's refusal.
type Reason string

// The reasons an operation fails.
const (
	// NoToken: no token is configured for the tracker.
	NoToken Reason = "no_token"
	// Unauthorized: the token was refused (401): expired or revoked.
	Unauthorized Reason = "unauthorized"
	// Forbidden: the token lacks a scope or the permission (403).
	Forbidden Reason = "forbidden"
	// NotFound: the repository or issue does not exist, or the token
	// cannot see it (404).
	NotFound Reason = "not_found"
	// Gone: the issue was deleted (410).
	Gone Reason = "gone"
	// Invalid: the tracker refused the request's content (400, 422).
	Invalid Reason = "invalid"
	// RateLimited: the tracker asks to wait; Error.RetryAfter says how
	// long.
	RateLimited Reason = "rate_limited"
	// Unavailable: the tracker did not answer, or answered 5xx.
	Unavailable Reason = "unavailable"
)

// Error is a failed tracker request. Its message names the tracker's
// answer, the cause and the fix.
type Error struct {
	Tracker Kind
	Op      string // "list issues", "comment on #4"…
	Status  int    // the HTTP status, 0 when none came
	Reason  Reason
	// Message is the tracker's own message, when it gave one.
	Message string
	// RetryAfter is how long a rate-limited request must wait.
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string { return e.Cause() + ": " + e.Fix() }

// Cause says what failed and what the tracker answered.
func (e *Error) Cause() string {
	what := fmt.Sprintf("%s issues: %s", e.Tracker, e.Op)
	if e.Status != 0 {
		what += fmt.Sprintf(": %d %s", e.Status, http.StatusText(e.Status))
	}
	if e.Message != "" {
		what += " (" + e.Message + ")"
	} else if e.Err != nil {
		what += ": " + e.Err.Error()
	}
	return what
}

// Fix says what to do about the failure.
func (e *Error) Fix() string {
	switch e.Reason {
	case NoToken:
		return fmt.Sprintf("no %s token is configured; store one with `bonsai credentials set %s` (docs/trackers.md)", e.Tracker, e.Tracker)
	case Unauthorized:
		return fmt.Sprintf("the %s token was refused (expired or revoked); store a new one with `bonsai credentials set %s`", e.Tracker, e.Tracker)
	case Forbidden:
		return "the token lacks a permission; give it " + Scopes(e.Tracker) + " (docs/trackers.md)"
	case NotFound:
		return "the repository or issue does not exist, or the token cannot see it; check the project's tracker and the token's repository access"
	case Gone:
		return "the issue was deleted on the tracker; its ticket keeps what was read"
	case Invalid:
		return "the tracker refused the request; see its message"
	case RateLimited:
		return fmt.Sprintf("the tracker's rate limit is spent; ask again after %s", e.RetryAfter.Round(time.Second))
	case Unavailable:
		return "the tracker did not answer; the next sync tries again"
	}
	return "unexpected answer"
}

// ReasonOf returns err's Reason, "" when err is not an *Error.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// scopes are the token permissions each tracker needs.
var scopes = map[Kind]string{
	GitHub: "fine-grained: Issues read and write, Metadata read; classic: repo (public_repo for a public repository)",
	GitLab: "api (read_api cannot comment or label)",
	Gitea:  "write:issue and read:repository",
	Linear: "a personal API key with read and write access to the team (or an OAuth token with read, write)",
	Jira:   "an API token of an account with Browse projects, Add comments, Edit issues and Transition issues on the project, and Browse users and groups",
}

// Scopes names the token scopes or permissions tracker k needs, as
// docs/trackers.md lists them.
func Scopes(k Kind) string { return scopes[k] }

// fromForge turns an error of forge's HTTP core into an *Error.
func fromForge(k Kind, err error) error {
	var fe *forge.Error
	if !errors.As(err, &fe) {
		return err
	}
	e := &Error{Tracker: k, Op: fe.Op, Status: fe.Status, Message: fe.Message, RetryAfter: fe.RetryAfter, Err: fe.Err}
	switch fe.Reason {
	case forge.NoToken:
		e.Reason = NoToken
	case forge.Unauthorized:
		e.Reason = Unauthorized
	case forge.Forbidden:
		e.Reason = Forbidden
	case forge.NotFound:
		e.Reason = NotFound
	case forge.RateLimited:
		e.Reason = RateLimited
	case forge.Invalid, forge.NotMergeable, forge.Conflict:
		e.Reason = Invalid
	default:
		e.Reason = Unavailable
	}
	if fe.Status == http.StatusGone {
		e.Reason = Gone
	}
	return e
}
