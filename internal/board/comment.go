package board

import (
	"strings"
	"time"
)

// CommentKind says what a comment is for.
type CommentKind string

// The comment kinds.
const (
	KindNote       CommentKind = "note"
	KindQuestion   CommentKind = "question"   // the agent is blocked on a person
	KindStatus     CommentKind = "status"     // progress report
	KindCompletion CommentKind = "completion" // the agent says the work is done
	KindFeedback   CommentKind = "feedback"   // a person sends work back
	KindApproval   CommentKind = "approval"   // a person accepts the work
	// KindPermission is about a command the policy held for a person: the
	// agent's request (it blocks the ticket) and the person's decision.
	KindPermission CommentKind = "permission"
)

// Valid reports whether k is a known kind.
func (k CommentKind) Valid() bool {
	switch k {
	case KindNote, KindQuestion, KindStatus, KindCompletion, KindFeedback, KindApproval, KindPermission:
		return true
	}
	return false
}

// Comment is one message in a ticket's thread. People and the agent talk only
// through comments.
type Comment struct {
	ID         string      `json:"id"`
	TicketID   string      `json:"ticketId"`
	AuthorType Actor       `json:"authorType"`
	AuthorName string      `json:"authorName"`
	Kind       CommentKind `json:"kind"`
	Content    string      `json:"content"` // Markdown
	// Resolved reports whether an agent run has seen this human comment.
	Resolved  bool      `json:"resolved"`
	CreatedAt time.Time `json:"createdAt"`
}

// MaxComment is the largest comment accepted, in bytes.
const MaxComment = 64 << 10

// Validate reports what is wrong with a comment about to be added.
func (c Comment) Validate() error {
	if !c.AuthorType.Valid() {
		return Errorf(EINVALID, "unknown author type %q", c.AuthorType)
	}
	if !c.Kind.Valid() {
		return Errorf(EINVALID, "unknown comment kind %q; use note, question, status, completion, feedback, approval or permission", c.Kind)
	}
	if strings.TrimSpace(c.Content) == "" {
		return Errorf(EINVALID, "comment is empty")
	}
	if len(c.Content) > MaxComment {
		return Errorf(EINVALID, "comment is %d bytes; the limit is %d", len(c.Content), MaxComment)
	}
	return nil
}

// ApplyComment returns t as it is after c is added: a human comment clears
// "blocked" (the person answered), and an agent question or permission
// request sets it (the agent waits for an answer).
func ApplyComment(t Ticket, c Comment) Ticket {
	switch {
	case c.AuthorType == Human && t.SubState == SubBlocked:
		t.SubState = SubNone
	case c.AuthorType == Agent && (c.Kind == KindQuestion || c.Kind == KindPermission):
		t.SubState = SubBlocked
	}
	return t
}
