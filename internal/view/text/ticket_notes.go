package text

import (
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// WhoReads completes "Commented on demo#3" for a ticket the agent does not
// work now: agents read comments only on RESEARCH and IN_PROGRESS tickets.
func WhoReads(t board.Ticket) string {
	switch t.State {
	case board.Backlog:
		return "; the agent reads it once the ticket moves to RESEARCH or IN_PROGRESS"
	case board.Verification:
		return "; the agent reads it only if you send the work back (bonsai ticket return)"
	case board.Done:
		return "; the ticket is DONE, so no agent will read it"
	}
	return ""
}

// ApprovalDecided says what a person's decision on ticket ref's held
// command did and, when they allowed it, what happens next.
func ApprovalDecided(ref board.Ref, ap board.Approval, allowed bool) string {
	var s string
	switch {
	case ap.Status == board.ApprovalDenied:
		s = fmt.Sprintf("Denied on %s: %s\nThe next heartbeat tells the agent, with your note.\n", ref, OneLine(ap.Command, 80))
	case ap.Always && ap.Pattern != "":
		s = fmt.Sprintf("Allowed on every ticket of %s, and added to its allow list as the program it runs now: %s\n", ref.Project, OneLine(ap.Pattern, 80))
	case ap.Always:
		s = fmt.Sprintf("Allowed on every ticket of %s: %s\n", ref.Project, OneLine(ap.Command, 80))
	default:
		s = fmt.Sprintf("Allowed once on %s: %s\n", ref, OneLine(ap.Command, 80))
	}
	if allowed {
		s += "The next heartbeat tells the agent, and the command runs.\n"
	}
	return s
}
