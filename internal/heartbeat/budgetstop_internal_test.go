package heartbeat

import (
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// TestBudgetStopComment blocks the ticket with a question when its own
// cap is reached, and only says so for a run's cap.
func TestBudgetStopComment(t *testing.T) {
	t.Parallel()
	p := board.Project{Slug: "demo"}
	out := Outcome{Status: board.RunBudgetExceeded, Usage: board.Usage{InputTokens: 900, OutputTokens: 200, CostUSD: 0.4}}

	run := budgetStopComment(p, Limits{RunTokens: 1000}, out, spent{})
	if run.Kind != board.KindStatus || run.AuthorType != board.System || !strings.Contains(run.Content, "this run's budget is used up") ||
		!strings.Contains(run.Content, "--run-tokens") || !strings.Contains(run.Content, "The next beat continues") {
		t.Fatalf("run cap comment = %+v", run)
	}
	sp := spent{ticket: store.Spend{Runs: 3, Usage: board.Usage{InputTokens: 5000, CostUSD: 2}}}
	ticket := budgetStopComment(p, Limits{TicketUSD: 2}, out, sp)
	if ticket.Kind != board.KindQuestion || ticket.AuthorType != board.Agent || !strings.Contains(ticket.Content, "reply here") ||
		!strings.Contains(ticket.Content, "The ticket has used 5000 tokens") {
		t.Fatalf("ticket cap comment = %+v, want a question that blocks", ticket)
	}
}
