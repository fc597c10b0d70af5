package forge

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Reason classifies a forge's refusal.
type Reason string

// The reasons an operation fails.
const (
	// NoToken: no token is configured for the forge.
	NoToken Reason = "no_token"
	// Unauthorized: the token was refused (401).
	Unauthorized Reason = "unauthorized"
	// Forbidden: the token lacks a scope or the permission (403), or a
	// protected branch refuses the merge.
	Forbidden Reason = "forbidden"
	// NotFound: the repository or pull request does not exist, or the
	// token cannot see it (404).
	NotFound Reason = "not_found"
	// NotMergeable: the forge refuses the merge now: checks required,
	// conflicts, reviews missing, a merge style the repository does not
	// allow (405, 406, 422 on merge).
	NotMergeable Reason = "not_mergeable"
	// Conflict: the head changed since it was approved, or the merge
	// conflicts (409).
	Conflict Reason = "conflict"
	// Invalid: the forge refused the request's content (422), e.g. a
	// pull request that already exists or a branch the forge lacks.
	Invalid Reason = "invalid"
	// RateLimited: the forge asks to wait (429, or 403 with the limit
	// spent); Error.RetryAfter says how long.
	RateLimited Reason = "rate_limited"
	// Unavailable: the forge did not answer, or answered 5xx.
	Unavailable Reason = "unavailable"
	// MergePending: the forge accepted the merge but has not merged yet.
	MergePending Reason = "merge_pending"
)

// Error is a failed forge request. Its message names the forge's answer,
// the cause and the fix.
type Error struct {
	Kind   Kind
	Op     string // "open pull request", "merge !4"…
	Status int    // the HTTP status, 0 when none came
	Reason Reason
	// Message is the forge's own message, when it gave one.
	Message string
	// RetryAfter is how long a rate-limited request must wait.
	RetryAfter time.Duration
	Err        error // the transport error, for Unavailable
}

func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string { return e.Cause() + ": " + e.Fix() }

// Cause says what failed and what the forge answered.
func (e *Error) Cause() string {
	what := fmt.Sprintf("%s: %s", e.Kind, e.Op)
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
		return fmt.Sprintf("no %s token is configured; store one with `bonsai credentials set %s` or set %s (docs/forges.md)", e.Kind, e.Kind, tokenEnv[e.Kind][len(tokenEnv[e.Kind])-1])
	case Unauthorized:
		return fmt.Sprintf("the %s token was refused (expired or revoked); store a new one with `bonsai credentials set %s`", e.Kind, e.Kind)
	case Forbidden:
		return "the token lacks the permission, or a branch protection rule refuses it; give the token the scopes docs/forges.md lists (" + scopes[e.Kind] + "), or merge on the forge"
	case NotFound:
		return "the repository or pull request does not exist, or the token cannot see it; check the project's remote and the token's repository access"
	case NotMergeable:
		return "the forge refuses to merge now (required checks or reviews, conflicts, or a merge style the repository does not allow); fix that on the forge, then approve again or run `bonsai ticket land`"
	case Conflict:
		return "the pull request's head changed since it was approved, or it conflicts with its base; look at it again, then approve"
	case Invalid:
		return "the forge refused the request; see its message"
	case RateLimited:
		wait := e.RetryAfter.Round(time.Second)
		switch e.repeat() {
		case byBeat:
			return fmt.Sprintf("the forge's rate limit is spent; no beat asks it again before %s have passed", wait)
		case byPerson:
			return fmt.Sprintf("the forge's rate limit is spent, so nothing was merged and the ticket stays in VERIFICATION; after %s, approve again or run `bonsai ticket land` (a merge is not retried by itself)", wait)
		case byRetry:
			return fmt.Sprintf("the forge's rate limit is spent; a later beat tries again, not before %s have passed", wait)
		}
		return fmt.Sprintf("the forge's rate limit is spent; Bonsai does not repeat this request by itself: try again after %s", wait)
	case Unavailable:
		switch e.repeat() {
		case byBeat:
			return "the forge did not answer; the next beat tries again"
		case byPerson:
			return "the forge did not answer, so nothing was merged and the ticket stays in VERIFICATION; once it answers, approve again or run `bonsai ticket land` (a merge is not retried by itself)"
		case byRetry:
			return "the forge did not answer; later beats try again, with growing waits"
		}
		return "the forge did not answer; Bonsai does not repeat this request by itself: try again once it answers"
	case MergePending:
		return "the forge accepted the merge and is still merging; the next beat sees the merge and moves the ticket to DONE"
	}
	return "unexpected answer"
}

// repeater says who repeats a failed operation.
type repeater int

const (
	byNobody repeater = iota // a probe
	byBeat                   // following a pull request: every beat reads it
	byPerson                 // a merge: the person approves again
	byRetry                  // opening or updating a pull request: later beats, with growing waits
)

// repeat says who repeats e's operation: the beat repeats its reads of
// pull requests, reviews and checks; a merge is repeated only by a person
// approving again (the approval is not kept to be retried); opening or
// updating a pull request is tried again by later beats, with growing
// waits for up to a day.
func (e *Error) repeat() repeater {
	switch {
	case strings.HasPrefix(e.Op, "merge "):
		return byPerson
	case strings.HasPrefix(e.Op, "read pull request"), strings.HasPrefix(e.Op, "read merge request"),
		strings.HasPrefix(e.Op, "read reviews"), strings.HasPrefix(e.Op, "read checks"):
		return byBeat
	case strings.HasPrefix(e.Op, "open "), strings.HasPrefix(e.Op, "update "), strings.HasPrefix(e.Op, "find "):
		return byRetry
	}
	return byNobody
}

// ReasonOf returns err's Reason, "" when err is not an *Error.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// scopes are the token permissions a forge needs, for messages.
var scopes = map[Kind]string{
	GitHub: "fine-grained: Pull requests read and write, Contents read and write, Commit statuses and Checks read; classic: repo",
	GitLab: "api",
	Gitea:  "write:repository and read:issue",
}

// NeededScopes names the token scopes or permissions Bonsai needs on
// forge k, as docs/forges.md lists them.
func NeededScopes(k Kind) string { return scopes[k] }
