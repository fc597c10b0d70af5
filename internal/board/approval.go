package board

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ApprovalStatus is where a person's decision on a held command stands.
type ApprovalStatus string

// The approval statuses.
const (
	ApprovalPending ApprovalStatus = "pending" // waiting for a person
	ApprovalAllowed ApprovalStatus = "allowed" // a person let the command run
	ApprovalDenied  ApprovalStatus = "denied"  // a person refused it
)

// Valid reports whether s is a known status.
func (s ApprovalStatus) Valid() bool {
	switch s {
	case ApprovalPending, ApprovalAllowed, ApprovalDenied:
		return true
	}
	return false
}

// Limits of what an approval holds.
const (
	// MaxApprovalCommand is the longest command an approval names, in
	// bytes; a longer command is refused, never shortened, so that what a
	// person allows is exactly what runs.
	MaxApprovalCommand = 16 << 10
	// MaxApprovalNote is the longest note a person adds to a decision.
	MaxApprovalNote = 4 << 10
	// maxApprovalText bounds the rule and the reason the policy gave.
	maxApprovalText = 2 << 10
)

// Approval is a command the command policy held for a person (verdict
// "ask") in a heartbeat run, and what the person decided. The request is
// a "permission" comment by the agent that blocks the ticket; the decision
// is a "permission" comment by the person that unblocks it.
type Approval struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectId"`
	TicketID  string `json:"ticketId"`
	// RunID is the run that asked; empty when unknown.
	RunID string `json:"runId,omitempty"`
	// Command is the exact command line, as the agent gave it to bash.
	Command string `json:"command"`
	// Rule and Reason are the policy's decision: the rule that held the
	// command ("ask-mode", "ask-pattern", …) and why, in one sentence.
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
	// Pattern, when not empty, is the command as an Allow pattern
	// matching exactly it: "always allow" adds it to the project's Allow
	// list, so it shows in the settings. Commands that are not one simple
	// command of literal words have none; the approval itself then lets
	// the identical command run on every ticket of the project.
	Pattern string         `json:"pattern,omitempty"`
	Status  ApprovalStatus `json:"status"`
	// Always, on an allowed approval, lets the identical command run
	// without asking on any ticket of the project; otherwise it runs once,
	// on this ticket.
	Always bool `json:"always"`
	// Used reports that a once-only approval let its command run.
	Used bool `json:"used"`
	// Note is what the person said with their decision, possibly empty.
	Note string `json:"note,omitempty"`
	// DecidedBy is the person who decided.
	DecidedBy string `json:"decidedBy,omitempty"`
	// Told reports that the agent was told the decision.
	Told bool `json:"told"`
	// CommentID is the request comment.
	CommentID string    `json:"commentId"`
	CreatedAt time.Time `json:"createdAt"`
	// DecidedAt is when a person decided; nil while pending.
	DecidedAt *time.Time `json:"decidedAt,omitempty"`
}

// ValidateRequest reports what is wrong with an approval about to be
// requested: its command (not empty, at most MaxApprovalCommand bytes of
// text whose only control characters are newlines and tabs), rule, reason
// and pattern.
func (a Approval) ValidateRequest() error {
	switch {
	case strings.TrimSpace(a.Command) == "":
		return Errorf(EINVALID, "the command to approve is empty")
	case len(a.Command) > MaxApprovalCommand:
		return Errorf(EINVALID, "the command is %d bytes; an approval names at most %d", len(a.Command), MaxApprovalCommand)
	case !utf8.ValidString(a.Command):
		return Errorf(EINVALID, "the command is not valid UTF-8 text")
	case strings.IndexFunc(a.Command, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) >= 0:
		// A terminal would run the escape sequences of a command shown
		// on it (bonsai ticket show): such a command is not asked for.
		return Errorf(EINVALID, "the command contains a control character other than a newline or tab")
	case len(a.Rule) > maxApprovalText || len(a.Reason) > maxApprovalText:
		return Errorf(EINVALID, "the policy's rule or reason is over %d bytes", maxApprovalText)
	case len(a.Pattern) > maxPatternLength || strings.IndexFunc(a.Pattern, unicode.IsControl) >= 0:
		return Errorf(EINVALID, "the approval's pattern is over %d bytes or contains a control character", maxPatternLength)
	}
	return nil
}

// ApprovalDecision is a person's answer to a pending approval.
type ApprovalDecision struct {
	// Allow lets the command run; false denies it.
	Allow bool
	// Always, with Allow, lets the identical command run without asking on
	// every ticket of the project. It is refused with a denial.
	Always bool
	// Note is an optional message to the agent.
	Note string
	// By is who decides.
	By string
}

// Validate reports what is wrong with a decision: always without allow, a
// note that is too long or holds control characters other than newlines.
func (d ApprovalDecision) Validate() error {
	if d.Always && !d.Allow {
		return Errorf(EINVALID, "\"always\" goes with allow, not deny")
	}
	return ValidateApprovalNote(d.Note)
}

// ValidateApprovalNote checks a decision's note: at most MaxApprovalNote
// bytes of text with no control characters but newlines (a browser's CRLF
// counts as one).
func ValidateApprovalNote(note string) error {
	note = strings.ReplaceAll(note, "\r\n", "\n")
	if len(note) > MaxApprovalNote {
		return Errorf(EINVALID, "the note is %d bytes; the limit is %d", len(note), MaxApprovalNote)
	}
	if !utf8.ValidString(note) {
		return Errorf(EINVALID, "the note is not valid UTF-8 text")
	}
	if i := strings.IndexFunc(note, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }); i >= 0 {
		return Errorf(EINVALID, "the note contains a control character (%U); only newlines may break it", []rune(note[i:])[0])
	}
	return nil
}

// Decide returns a after the decision d, decided at now. A decision on an
// approval that is not pending is ECONFLICT, naming who decided it.
func (a Approval) Decide(d ApprovalDecision, now time.Time) (Approval, error) {
	if err := d.Validate(); err != nil {
		return a, err
	}
	if a.Status != ApprovalPending {
		by := ""
		if a.DecidedBy != "" {
			by = " by " + a.DecidedBy
		}
		return a, Errorf(ECONFLICT, "approval %s was already %s%s; nothing changed", a.ID, a.Status, by)
	}
	a.Status = ApprovalDenied
	if d.Allow {
		a.Status = ApprovalAllowed
	}
	a.Always = d.Allow && d.Always
	a.Note = strings.TrimSpace(strings.ReplaceAll(d.Note, "\r\n", "\n"))
	a.DecidedBy = d.By
	a.DecidedAt = &now
	return a, nil
}

// Grants reports whether a lets its command run now: allowed always, or
// allowed once and not yet used.
func (a Approval) Grants() bool {
	return a.Status == ApprovalAllowed && (a.Always || !a.Used)
}

// RequestText is the agent's request comment for a: the exact command as
// a code block, why it needs approval and how to answer.
func RequestText(a Approval, ref Ref) string {
	var b strings.Builder
	b.WriteString("I need a person's approval to run this command:\n\n")
	b.WriteString(CodeBlock(a.Command))
	fmt.Fprintf(&b, "\nWhy it needs approval (%s): %s\n\n", a.Rule, a.Reason)
	fmt.Fprintf(&b, "Answer on the ticket page (Allow once, Always allow for this project, Deny), or with `bonsai ticket allow %s [--always]` or `bonsai ticket deny %s [--note TEXT]`. The ticket is blocked until then.", ref, ref)
	return b.String()
}

// DecisionText is the person's comment recording their decision on a.
func DecisionText(a Approval) string {
	var b strings.Builder
	switch {
	case a.Status == ApprovalAllowed && a.Always:
		b.WriteString("Allowed for every ticket of this project")
		if a.Pattern != "" {
			b.WriteString(" (added to its allow list)")
		}
		b.WriteString(":\n\n")
	case a.Status == ApprovalAllowed:
		b.WriteString("Allowed once:\n\n")
	default:
		b.WriteString("Denied:\n\n")
	}
	b.WriteString(CodeBlock(a.Command))
	if a.Note != "" {
		fmt.Fprintf(&b, "\n%s\n", a.Note)
	}
	return b.String()
}

// CodeBlock renders s as a fenced Markdown code block whose fence is
// longer than any run of backticks in s, so no command can end it early.
func CodeBlock(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "sh\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}
