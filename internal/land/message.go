package land

import (
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// CommitMessage is the message of the commit a ticket lands as (a squash
// or merge commit): the title and the ticket's reference as the subject,
// the acceptance criteria as the body, and who approved it as a trailer.
func CommitMessage(t board.Ticket, approver Person) Message {
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
		fmt.Fprintf(&b, "Approved-by: %s", approver)
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
