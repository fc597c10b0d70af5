package view

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// LoadTicketDetail reads what `ticket show` shows of ticket ref: the
// ticket with its comments, runs, approvals and landing, and its project;
// for a ticket agents work on, why the heartbeat does not run it now
// (NotRun) from blockers, the project's blockers and the agent facts.
func LoadTicketDetail(ctx context.Context, s store.Store, ref board.Ref,
	blockers func(board.Project) ([]Blocker, AgentFacts)) (TicketDetail, board.Project, error) {
	t, err := s.Ticket(ctx, ref)
	if err != nil {
		return TicketDetail{}, board.Project{}, err
	}
	comments, err := s.Comments(ctx, ref)
	if err != nil {
		return TicketDetail{}, board.Project{}, err
	}
	runs, err := s.Runs(ctx, ref)
	if err != nil {
		return TicketDetail{}, board.Project{}, err
	}
	as, err := s.Approvals(ctx, ref)
	if err != nil {
		return TicketDetail{}, board.Project{}, err
	}
	d := NewTicketDetail(t, comments, runs)
	d.Approvals = as
	if d.Attachments, err = s.Attachments(ctx, ref); err != nil {
		return TicketDetail{}, board.Project{}, err
	}
	p, err := s.Project(ctx, ref.Project)
	if err != nil {
		return TicketDetail{}, board.Project{}, err
	}
	l, err := s.Landing(ctx, ref)
	switch {
	case err == nil:
		d.SetLanding(p, &l)
	case board.ErrorCode(err) == board.ENOTFOUND:
		d.SetLanding(p, nil)
	default:
		return TicketDetail{}, board.Project{}, err
	}
	if err := d.LoadLinks(ctx, s, ref); err != nil {
		return TicketDetail{}, board.Project{}, err
	}
	if AgentsWorkOn(t) {
		bs, facts := blockers(p)
		d.NotRun = d.WithWaiting(NotRun(d.Ref, facts, bs))
	}
	return d, p, nil
}
