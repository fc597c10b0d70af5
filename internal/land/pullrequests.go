package land

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// PullRequests is the forge side of landing: what the Lander asks of the
// pull requests of the pr mode. internal/forge implements it; the Lander
// works without one (nil), and auto mode then never resolves to pr.
type PullRequests interface {
	// Available reports whether project p's repository is on a known forge
	// and a token for that forge is stored, so that auto mode resolves to
	// pr. It makes no network request.
	Available(p board.Project) bool
	// Merge merges the pull request of the ticket in req through the
	// forge's API, with req's message and merge style, and returns the
	// commit that is now on the default branch. When the forge refuses
	// (checks failing, conflicts, a protected branch, a token without the
	// needed scope, the forge down) it returns a *Failure whose Cause and
	// Fix the ticket's comment shows; any other error is shown as it is.
	Merge(ctx context.Context, req MergeRequest) (Merged, error)
}

// MergeRequest is a pull request to merge on approval.
type MergeRequest struct {
	Project board.Project
	Ticket  board.Ticket
	// Landing is the ticket's landing record as the store has it: the
	// pull request's forge, number and head.
	Landing board.Landing
	// Reviewed is the commit of the ticket branch a person reviewed (the
	// store's board.Review): the pull request is merged only while its
	// head is that commit.
	Reviewed string
	// Message is the commit message of a squash or merge commit.
	Message Message
	// Approver is the person who approved; forges merge as the token's
	// owner, so it is only named in the message.
	Approver Person
}

// Merged is a pull request that was merged.
type Merged struct {
	// Commit is the commit the default branch points at afterwards.
	Commit string
}

// Message is a commit message.
type Message struct {
	// Subject is the first line.
	Subject string
	// Body is the rest, without the blank line between them.
	Body string
}

// String returns the message as git takes it: the subject, a blank line
// and the body when there is one.
func (m Message) String() string {
	if m.Body == "" {
		return m.Subject + "\n"
	}
	return m.Subject + "\n\n" + m.Body + "\n"
}

// Person is who a commit is by: a name and an email address.
type Person struct {
	Name  string
	Email string
}
