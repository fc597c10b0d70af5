package notify

import (
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Message is what a channel sends: a subject line, a plain-text body and
// the facts behind them for channels that carry structure (the webhook).
type Message struct {
	// ID is the outbox row's ID (0 for a test message); with EventID it
	// lets a receiver drop a duplicate.
	ID        int64            `json:"id"`
	EventID   int64            `json:"eventId,omitempty"`
	Kind      board.NotifyKind `json:"event"`
	Project   string           `json:"project,omitempty"`
	Ticket    string           `json:"ticket,omitempty"`
	Title     string           `json:"title,omitempty"`
	Text      string           `json:"text,omitempty"`
	RunStatus string           `json:"runStatus,omitempty"`
	CostUSD   float64          `json:"costUsd,omitempty"`
	Subject   string           `json:"subject"`
	Body      string           `json:"body"`
	CreatedAt time.Time        `json:"createdAt"`
	// Attachments are the files that came with the comment or the move
	// notified, as links (WithAttachments); Body lists them too.
	Attachments []Link `json:"attachments,omitempty"`

	text string // Body without its list of files
}

// NewMessage builds the message of a notification.
func NewMessage(n board.Notification) Message {
	m := Message{ID: n.ID, EventID: n.EventID, Kind: n.Kind, Project: n.Project, Ticket: n.Ticket, Title: n.Title,
		Text: n.Text, RunStatus: n.RunStat, CostUSD: n.CostUSD, CreatedAt: n.CreatedAt}
	m.Subject, m.Body = format(n)
	return m
}

// TestMessage is what `bonsai notify test` sends.
func TestMessage(now time.Time) Message {
	return Message{Kind: "test", Subject: "Bonsai test notification",
		Body: "This channel works: Bonsai will send its notifications here.", CreatedAt: now}
}

// format returns the subject and body of n.
func format(n board.Notification) (string, string) {
	what := n.Ticket
	if n.Title != "" {
		what += " " + quote(n.Title)
	}
	var subject, body string
	switch n.Kind {
	case board.NotifyQuestion:
		subject = "Question on " + what
		body = n.Text + "\n\nAnswer with: bonsai comment add " + n.Ticket + " '…'"
	case board.NotifyApproval:
		subject = "Approval needed on " + what
		body = n.Text + "\n\nDecide with: bonsai ticket allow " + n.Ticket + " (or deny)"
	case board.NotifyReview:
		subject = "Ready for review: " + what
		body = "The agent moved " + n.Ticket + " to VERIFICATION.\n\nAccept with: bonsai ticket approve " + n.Ticket + ", or send it back with: bonsai ticket return " + n.Ticket + " --feedback …"
	case board.NotifyRunFailed:
		subject = fmt.Sprintf("Run %s on %s", orDefault(n.RunStat, "failed"), what)
		body = orDefault(n.Text, "The run ended with status "+n.RunStat+".") + "\n\nSee: bonsai ticket show " + n.Ticket
	case board.NotifyBudget:
		subject = "Budget reached on " + what
		body = fmt.Sprintf("The run stopped at its budget ($%.2f spent in the run). %s\n\nRaise it with: bonsai project edit %s --budget …",
			n.CostUSD, n.Text, n.Project)
	case board.NotifyBlocked:
		subject = "Agents of " + n.Project + " cannot run"
		body = n.Text + "\n\nCheck with: bonsai doctor"
	default:
		subject = string(n.Kind) + " on " + what
		body = n.Text
	}
	return strings.TrimSpace(subject), strings.TrimSpace(body)
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:77] + "…"
	}
	return "“" + s + "”"
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
