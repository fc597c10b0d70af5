package land

import (
	"context"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// CommitMessage is the message of the commit a ticket lands as (a squash
// or merge commit): the title and the ticket's reference as the subject,
// the acceptance criteria as the body, who approved it as a trailer, and
// coAuthors (the agent's "Co-authored-by:" trailers of the squashed
// commits, "Name <email>" each) as trailers of their own.
func CommitMessage(t board.Ticket, approver Person, coAuthors ...string) Message {
	m := Message{Subject: fmt.Sprintf("%s (%s)", oneLine(t.Title), t.Ref())}
	var b strings.Builder
	if len(t.Criteria) > 0 {
		b.WriteString("Acceptance criteria:\n")
		for _, c := range t.Criteria {
			fmt.Fprintf(&b, "- %s\n", oneLine(c))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Ticket: %s\n", t.Ref())
	if approver.Name != "" {
		fmt.Fprintf(&b, "Approved-by: %s\n", approver)
	}
	for _, c := range coAuthors {
		fmt.Fprintf(&b, "Co-authored-by: %s\n", oneLine(c))
	}
	m.Body = strings.TrimRight(b.String(), "\n")
	return m
}

// String returns "Name <email>", or the name alone when there is no email.
func (p Person) String() string {
	if p.Email == "" {
		return p.Name
	}
	return p.Name + " <" + p.Email + ">"
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// coAuthorReader is what of Git reads the agent's "Co-authored-by:"
// trailers of reviewed commits (workspace.Provider's CoAuthors).
type coAuthorReader interface {
	CoAuthors(ctx context.Context, p board.Project, base, tip string) ([]string, error)
}

// coAuthors returns the agent's co-author trailers of the reviewed
// commits, for a squash commit, which would drop them: merge and rebase
// keep the commits and their trailers. None when Git cannot read them;
// attribution never stops a landing.
func (l *Lander) coAuthors(ctx context.Context, p board.Project, rv board.Review) []string {
	r, ok := l.opts.Git.(coAuthorReader)
	if !ok || p.Agent.LandStyle != board.LandSquash || rv.Base == "" || rv.Tip == "" {
		return nil
	}
	out, err := r.CoAuthors(ctx, p, rv.Base, rv.Tip)
	if err != nil {
		return nil
	}
	return out
}
