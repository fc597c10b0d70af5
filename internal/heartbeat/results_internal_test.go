package heartbeat

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestAskPlanApproval asks a person, as the agent, to approve the plan of
// a plan-mode ticket left in RESEARCH, and asks nothing in another mode
// or without a plan.
func TestAskPlanApproval(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	ref := u.ticket.Ref()
	if _, err := u.db.MoveTicket(ctx, ref, board.MoveRequest{To: board.Research, Actor: board.Human}, "ana"); err != nil {
		t.Fatal(err)
	}
	p := Plan{Ticket: u.ticket, Project: board.Project{Slug: "demo", Agent: board.AgentSettings{PermissionMode: board.ModePlan}}}
	if askPlanApproval(ctx, u.db, u.notes(), p) {
		t.Fatal("asked to approve a plan the ticket does not have")
	}
	plan := "1. fix it"
	if _, err := u.db.UpdateTicket(ctx, ref, board.TicketPatch{Plan: &plan}, board.Agent); err != nil {
		t.Fatal(err)
	}
	other := p
	other.Project.Agent.PermissionMode = board.ModeAuto
	if askPlanApproval(ctx, u.db, u.notes(), other) {
		t.Fatal("asked for plan approval in a mode where no person approves plans")
	}
	if !askPlanApproval(ctx, u.db, u.notes(), p) {
		t.Fatal("did not ask to approve the saved plan")
	}
	cs := u.comments(t)
	if last := cs[len(cs)-1]; last.Kind != board.KindQuestion || last.AuthorType != board.Agent {
		t.Fatalf("last comment = %+v, want the agent's question", last)
	}
}

// TestStatusText says how the run ended, what it cost, the error and the
// agent's last words, cut.
func TestStatusText(t *testing.T) {
	t.Parallel()
	out := Outcome{Status: board.RunTimeout, Error: "deadline", Summary: strings.Repeat("w", maxSummary+10),
		Usage: board.Usage{InputTokens: 7, OutputTokens: 3, CostUSD: 0.25}}
	got := statusText(out, board.TaskImplement, 90*time.Second)
	for _, want := range []string{"Run (implement) ended **timeout** after 1m30s", "7 tokens in, 3 out", "Error: deadline", " […]", "resumes from the transcript"} {
		if !strings.Contains(got, want) {
			t.Errorf("statusText lacks %q:\n%s", want, got)
		}
	}
}
