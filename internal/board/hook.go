package board

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// HookScheme is how an inbound webhook proves it comes from its sender
// (docs/webhooks.md).
type HookScheme string

// The verification schemes.
const (
	// HookGitHub: X-Hub-Signature-256, "sha256=" and the hex HMAC-SHA256
	// of the body; the delivery id is X-GitHub-Delivery.
	HookGitHub HookScheme = "github"
	// HookGitLab: X-Gitlab-Token equal to the secret; the delivery id is
	// X-Gitlab-Event-UUID.
	HookGitLab HookScheme = "gitlab"
	// HookGitea: X-Gitea-Signature, the hex HMAC-SHA256 of the body; the
	// delivery id is X-Gitea-Delivery.
	HookGitea HookScheme = "gitea"
	// HookHMAC: a generic sender signs timestamp, nonce and body with
	// HMAC-SHA256 in a header of the hook's choice.
	HookHMAC HookScheme = "hmac"
)

// HookSchemes lists the schemes in the order help shows them.
func HookSchemes() []HookScheme { return []HookScheme{HookGitHub, HookGitLab, HookGitea, HookHMAC} }

// HookAction is what a verified delivery does.
type HookAction string

// The actions.
const (
	// HookTicket creates a ticket from the hook's template, its fields
	// taken from the payload.
	HookTicket HookAction = "ticket"
	// HookSync syncs the project's tracker now.
	HookSync HookAction = "sync"
	// HookSchedule fires the project's schedule Target now.
	HookSchedule HookAction = "schedule"
	// HookRun runs the project's ticket Target (a number, or a template
	// giving one) now.
	HookRun HookAction = "run"
)

// HookActions lists the actions in the order help shows them.
func HookActions() []HookAction { return []HookAction{HookTicket, HookSync, HookSchedule, HookRun} }

// Limits on a hook's fields.
const (
	MaxHookName   = 64
	MaxHookEvents = 20
	MaxHookWhen   = 10
)

// Hook is an inbound webhook: POST /hooks/<Name> on `bonsai serve`.
type Hook struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	ProjectSlug string     `json:"project"`
	Scheme      HookScheme `json:"scheme"`
	// Header is the signature header of a HookHMAC hook; empty means
	// X-Signature. The others' headers are fixed.
	Header string `json:"header,omitempty"`
	// Secret is the shared secret as the store keeps it: sealed with the
	// credentials key by the caller (never shown, never logged).
	Secret string     `json:"-"`
	Action HookAction `json:"action"`
	// Target is the schedule's name (HookSchedule) or the ticket number,
	// or a template giving it (HookRun).
	Target string `json:"target,omitempty"`
	// Events are the deliveries acted on ("issues.labeled", "issues",
	// "Issue Hook.open"); none means every one.
	Events []string `json:"events"`
	// When are payload fields that must hold a value for the delivery
	// to act ("label.name" → "bonsai"); others are ignored.
	When map[string]string `json:"when"`
	// Title, Description and Criteria are the template of HookTicket's
	// tickets: {{path.to.field}} is the payload's field.
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Criteria    []string `json:"criteria"`
	// Priority and State are the tickets' priority and starting state
	// (BACKLOG, the default, or RESEARCH or IN_PROGRESS).
	Priority  int       `json:"priority"`
	State     State     `json:"state,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ValidateHookName reports whether s may name a hook: 1 to 64 characters
// of a-z, 0-9, "-" and "_", so that it is one path segment as it is.
func ValidateHookName(s string) error {
	if s == "" || len(s) > MaxHookName {
		return Errorf(EINVALID, "hook name %q: use 1 to %d characters of a-z, 0-9, - and _", s, MaxHookName)
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return Errorf(EINVALID, "hook name %q has %q: use only a-z, 0-9, - and _", s, r)
		}
	}
	return nil
}

// Validate checks a hook's fields; the templates' placeholders are
// checked where they are parsed (internal/hook).
func (h Hook) Validate() error {
	if err := ValidateHookName(h.Name); err != nil {
		return err
	}
	if err := ValidateSlug(h.ProjectSlug); err != nil {
		return err
	}
	if !slices.Contains(HookSchemes(), h.Scheme) {
		return Errorf(EINVALID, "hook %s: scheme %q; want github, gitlab, gitea or hmac", h.Name, h.Scheme)
	}
	if h.Secret == "" {
		return Errorf(EINVALID, "hook %s has no secret", h.Name)
	}
	if h.Header != "" && (h.Scheme != HookHMAC || strings.ContainsAny(h.Header, " \t\r\n:")) {
		return Errorf(EINVALID, "hook %s: --header %q is for an hmac hook, one header name", h.Name, h.Header)
	}
	if len(h.Events) > MaxHookEvents || len(h.When) > MaxHookWhen {
		return Errorf(EINVALID, "hook %s: at most %d events and %d conditions", h.Name, MaxHookEvents, MaxHookWhen)
	}
	return h.validateAction()
}

func (h Hook) validateAction() error {
	switch h.Action {
	case HookTicket:
		if strings.TrimSpace(h.Title) == "" {
			return Errorf(EINVALID, "hook %s creates tickets: give their --title, e.g. \"{{issue.title}}\"", h.Name)
		}
		if err := ValidatePriority(h.Priority); err != nil {
			return err
		}
		if !slices.Contains([]State{"", Backlog, Research, InProgress}, h.State) {
			return Errorf(EINVALID, "hook %s: tickets start in BACKLOG, RESEARCH or IN_PROGRESS, not %s", h.Name, h.State)
		}
	case HookSync:
	case HookSchedule, HookRun:
		if strings.TrimSpace(h.Target) == "" {
			what := map[HookAction]string{HookSchedule: "--schedule NAME", HookRun: "--ticket N"}[h.Action]
			return Errorf(EINVALID, "hook %s: action %s needs %s", h.Name, h.Action, what)
		}
	default:
		return Errorf(EINVALID, "hook %s: action %q; want ticket, sync, schedule or run", h.Name, h.Action)
	}
	return nil
}

// DeliveryOutcome is what became of one delivery.
type DeliveryOutcome string

// The outcomes.
const (
	DeliveryReceived DeliveryOutcome = "received" // verified, its action under way
	DeliveryDone     DeliveryOutcome = "done"     // its action did what Detail says
	DeliveryIgnored  DeliveryOutcome = "ignored"  // another event, or When did not match
	DeliveryRefused  DeliveryOutcome = "refused"  // bad signature, stale, missing field...
	DeliveryReplay   DeliveryOutcome = "replay"   // a delivery id received before
	DeliveryFailed   DeliveryOutcome = "failed"   // its action failed; a redelivery tries again
)

// HookDelivery is one request to a hook, as its delivery log keeps it:
// never the payload, the headers or the secret.
type HookDelivery struct {
	ID       int64  `json:"id"`
	HookName string `json:"hook"`
	// DeliveryID is the sender's id of the delivery (X-GitHub-Delivery,
	// the generic nonce); empty for one refused before it was read.
	DeliveryID string          `json:"deliveryId,omitempty"`
	Event      string          `json:"event,omitempty"`
	Status     int             `json:"status"`
	Outcome    DeliveryOutcome `json:"outcome"`
	Detail     string          `json:"detail,omitempty"`
	// Ticket is the ticket the delivery created or ran, 0 for none.
	Ticket     int       `json:"ticket,omitempty"`
	Size       int64     `json:"size"`
	ReceivedAt time.Time `json:"receivedAt"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
}

// MaxDeliveryDetail caps a delivery's detail in the log.
const MaxDeliveryDetail = 500

// String is a delivery in one line, for logs.
func (d HookDelivery) String() string {
	return fmt.Sprintf("%s %s %d %s %s", d.HookName, d.DeliveryID, d.Status, d.Outcome, d.Detail)
}
