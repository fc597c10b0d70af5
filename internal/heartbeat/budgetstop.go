package heartbeat

import (
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// budgetStopComment is the comment of a run that ended budget_exceeded
// in project p with caps l, having used out.Usage, its ticket and project
// having spent sp: what was spent, against which cap, and how to raise
// it. A ticket cap blocks the ticket with a question (a person's reply
// lets it go on once the cap is raised); a run or daily cap is a status
// comment, since the next run or the next day starts afresh.
func budgetStopComment(p board.Project, l Limits, out Outcome, sp spent) board.Comment {
	hits := crossedCaps(l, out.Usage, sp, true)
	blocking := hasScope(hits, "ticket")
	var b strings.Builder
	b.WriteString("I stopped: ")
	switch len(hits) {
	case 0:
		fmt.Fprintf(&b, "the run's budget was used up (%s).", orText(out.Error, "budget_exceeded"))
	case 1:
		fmt.Fprintf(&b, "%s. Raise it with %s.", hits[0].text(), hits[0].raise(p.Slug))
	default:
		b.WriteString("more than one budget is used up:\n")
		for _, c := range hits {
			fmt.Fprintf(&b, "\n- %s. Raise it with %s.", capital(c.text()), c.raise(p.Slug))
		}
	}
	fmt.Fprintf(&b, "\n\nThis run used %d tokens (%d in, %d out, %d cached) and cost %s.",
		out.Usage.Tokens(), out.Usage.InputTokens, out.Usage.OutputTokens,
		out.Usage.CacheTokens(), usd(out.Usage.CostUSD))
	if l.TicketTokens > 0 || l.TicketUSD > 0 {
		fmt.Fprintf(&b, " The ticket has used %d tokens and %s so far.", sp.ticket.Tokens(), usd(sp.ticket.CostUSD))
	}
	kind, author := board.KindStatus, board.System
	switch {
	case blocking:
		b.WriteString(" Once it is raised, reply here to let me continue.")
		// A question from the agent blocks the ticket until a reply.
		kind, author = board.KindQuestion, board.Agent
	case hasScope(hits, "day"):
		b.WriteString(" The project's tickets wait until midnight, or until the cap is raised.")
	default:
		b.WriteString(" The next beat continues from the transcript.")
	}
	return board.Comment{AuthorType: author, AuthorName: runtimeAuthor, Kind: kind, Content: b.String()}
}

func hasScope(hits []capHit, scope string) bool {
	for _, c := range hits {
		if c.scope == scope {
			return true
		}
	}
	return false
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// capital upper-cases the first letter of an ASCII sentence.
func capital(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
