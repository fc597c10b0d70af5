package cli

import (
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestNextStep_PlanAwaitingApproval: a researched ticket whose agent asked
// about its plan says how to approve it, as well as how to answer.
func TestNextStep_PlanAwaitingApproval(t *testing.T) {
	t.Parallel()
	got := nextStep("demo#3", board.Ticket{State: board.Research, SubState: board.SubBlocked, Plan: "1. Do it."})
	if !strings.Contains(got, "approve it with: bonsai ticket move demo#3 IN_PROGRESS") || !strings.Contains(got, "bonsai comment add demo#3 TEXT") {
		t.Errorf("nextStep = %q", got)
	}
	if got := nextStep("demo#3", board.Ticket{State: board.Research, SubState: board.SubBlocked}); strings.Contains(got, "approve") {
		t.Errorf("without a plan: %q", got)
	}
}
