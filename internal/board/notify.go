package board

import (
	"strings"
	"time"
)

// EventAgentsBlocked records that a cause keeps a project's agents from
// running (no key, provider paused, budget used up...). It is written once
// per cause, when the cause appears, not every beat; its data holds the
// cause.
const EventAgentsBlocked EventType = "agents.blocked"

// NotifyKind is what a notification is about.
type NotifyKind string

// The notification kinds (docs/notifications.md).
const (
	NotifyQuestion  NotifyKind = "question"   // an agent asked a question
	NotifyApproval  NotifyKind = "approval"   // an agent waits for an approval
	NotifyReview    NotifyKind = "review"     // a ticket moved to VERIFICATION
	NotifyRunFailed NotifyKind = "run_failed" // a run ended in error or timeout
	NotifyBudget    NotifyKind = "budget"     // a run stopped at a budget
	NotifyBlocked   NotifyKind = "blocked"    // agents cannot run
)

// NotifyKinds lists every notification kind.
func NotifyKinds() []NotifyKind {
	return []NotifyKind{NotifyQuestion, NotifyApproval, NotifyReview, NotifyRunFailed, NotifyBudget, NotifyBlocked}
}

// Valid reports whether k is a known kind.
func (k NotifyKind) Valid() bool {
	for _, v := range NotifyKinds() {
		if k == v {
			return true
		}
	}
	return false
}

// ChannelKind is how a channel delivers.
type ChannelKind string

// The channel kinds.
const (
	ChannelWebhook ChannelKind = "webhook"
	ChannelNtfy    ChannelKind = "ntfy"
	ChannelSlack   ChannelKind = "slack"
	ChannelDiscord ChannelKind = "discord"
	ChannelEmail   ChannelKind = "email"
	ChannelDesktop ChannelKind = "desktop"
)

// ChannelKinds lists every channel kind.
func ChannelKinds() []ChannelKind {
	return []ChannelKind{ChannelWebhook, ChannelNtfy, ChannelSlack, ChannelDiscord, ChannelEmail, ChannelDesktop}
}

// Valid reports whether k is a known kind.
func (k ChannelKind) Valid() bool {
	for _, v := range ChannelKinds() {
		if k == v {
			return true
		}
	}
	return false
}

// Channel is a place notifications go: a webhook, a chat, a mailbox.
type Channel struct {
	ID   string      `json:"id"`
	Name string      `json:"name"`
	Kind ChannelKind `json:"kind"`
	// ProjectSlug limits the channel to one project; "" is every project.
	ProjectSlug string `json:"project,omitempty"`
	// Kinds are the notification kinds it wants; none means every kind.
	Kinds []NotifyKind `json:"kinds"`
	// Settings are the kind's settings (url, secret, host, to...). Some
	// are secrets: they are shown only redacted.
	Settings  map[string]string `json:"-"`
	CreatedAt time.Time         `json:"createdAt"`
}

// Wants reports whether the channel wants notifications of kind k.
func (c Channel) Wants(k NotifyKind) bool {
	if len(c.Kinds) == 0 {
		return true
	}
	for _, v := range c.Kinds {
		if v == k {
			return true
		}
	}
	return false
}

// Validate checks the fields every channel has; the kind's settings are
// checked where the channel is built (internal/notify).
func (c Channel) Validate() error {
	if c.Name == "" || len(c.Name) > 64 || strings.ContainsAny(c.Name, " \t\n/#") {
		return Errorf(EINVALID, "channel name %q: use 1 to 64 characters without spaces, '/' or '#'", c.Name)
	}
	if !c.Kind.Valid() {
		return Errorf(EINVALID, "channel kind %q: want one of webhook, ntfy, slack, discord, email, desktop", c.Kind)
	}
	for _, k := range c.Kinds {
		if !k.Valid() {
			return Errorf(EINVALID, "notification kind %q: want one of question, approval, review, run_failed, budget, blocked", k)
		}
	}
	return nil
}

// NotifyStatus is where a notification is in its delivery.
type NotifyStatus string

// The notification statuses.
const (
	NotifyPending NotifyStatus = "pending" // waiting for its first or next attempt
	NotifySent    NotifyStatus = "sent"
	NotifyFailed  NotifyStatus = "failed" // given up: permanent error or too many attempts
)

// Notification is one message for one channel, from the outbox.
type Notification struct {
	ID          int64        `json:"id"`
	ChannelID   string       `json:"channelId"`
	ChannelName string       `json:"channel"`
	EventID     int64        `json:"eventId"`
	Kind        NotifyKind   `json:"kind"`
	Status      NotifyStatus `json:"status"`
	Attempts    int          `json:"attempts"`
	LastError   string       `json:"lastError,omitempty"`
	// What it says, captured when the event happened.
	Project string  `json:"project,omitempty"`
	Ticket  string  `json:"ticket,omitempty"` // e.g. "demo#3"
	Title   string  `json:"title,omitempty"`
	Text    string  `json:"text,omitempty"` // the question, the error, the cause
	Actor   string  `json:"actor,omitempty"`
	RunStat string  `json:"runStatus,omitempty"`
	CostUSD float64 `json:"costUsd,omitempty"`

	CreatedAt time.Time  `json:"createdAt"`
	NextAt    time.Time  `json:"nextAt"`
	SettledAt *time.Time `json:"settledAt,omitempty"`
}

// Delivery is a claimed notification with the channel to send it on.
type Delivery struct {
	Notification
	Channel Channel
}

// Outcome is how an attempt to deliver ended: Sent, or an error with
// RetryAt set for another attempt or zero to give up.
type Outcome struct {
	Sent    bool
	Err     string
	RetryAt time.Time
}
