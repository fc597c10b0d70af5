package heartbeat

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// linkReader reads a ticket's sub-tickets.
type linkReader interface {
	TicketLinks(ctx context.Context, ref board.Ref) (board.Links, error)
}

// verifyTask returns the task of a ticket picked to implement that has
// sub-tickets: the pick passes over a parent until every sub-ticket of it
// is DONE, so its implement run is the one that verifies the whole
// (board.TaskVerify). Any other task is returned as it is.
func verifyTask(ctx context.Context, s linkReader, t board.Ticket, task board.TaskKind) (board.TaskKind, error) {
	if task != board.TaskImplement {
		return task, nil
	}
	ls, err := s.TicketLinks(ctx, t.Ref())
	if err != nil {
		return task, err
	}
	if len(ls.Children) > 0 && len(ls.Waiting()) == 0 {
		return board.TaskVerify, nil
	}
	return task, nil
}

// splitState is the state ticket_split's sub-tickets start in: RESEARCH
// where a person approves each plan, so each part's plan is approved too;
// IN_PROGRESS otherwise, their descriptions being their part of the plan.
func splitState(p board.Project) board.State {
	if p.Agent.PermissionMode.PersonApprovesPlans() {
		return board.Research
	}
	return board.InProgress
}
