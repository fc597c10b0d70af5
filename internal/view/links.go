package view

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// LinksReader reads a ticket's sub-tickets and blockers.
type LinksReader interface {
	TicketLinks(ctx context.Context, ref board.Ref) (board.Links, error)
}

// LoadLinks reads ref's links into d.Links, left nil when the ticket has
// none.
func (d *TicketDetail) LoadLinks(ctx context.Context, s LinksReader, ref board.Ref) error {
	ls, err := s.TicketLinks(ctx, ref)
	if err != nil {
		return err
	}
	if ls.Parent != nil || len(ls.Children)+len(ls.BlockedBy)+len(ls.Blocks) > 0 {
		d.Links = &ls
	}
	return nil
}

// WithWaiting returns notRun with, first, what the ticket waits for (a
// blocker or a sub-ticket not DONE), for a ticket agents work on: the
// pick passes it over until then.
func (d TicketDetail) WithWaiting(notRun []string) []string {
	if d.Links == nil || !AgentsWorkOn(d.Ticket.Ticket) {
		return notRun
	}
	if w := d.Links.WaitingText(); w != "" {
		return append([]string{"it " + w + "; it is picked once they are DONE"}, notRun...)
	}
	return notRun
}

// WaitingTicket is a ticket agents would work on that waits for other
// tickets, as status lists it.
type WaitingTicket struct {
	Ticket
	// Waits says for what, e.g. "waits for demo#4 (IN_PROGRESS)".
	Waits string `json:"waits"`
}

// waitingSource is what loadWaiting reads.
type waitingSource interface {
	WaitingTickets(ctx context.Context, limit int) ([]board.Ticket, error)
	LinksReader
}

// loadWaiting lists the first BlockedShown waiting tickets with what
// each waits for.
func loadWaiting(ctx context.Context, s waitingSource) ([]WaitingTicket, error) {
	ts, err := s.WaitingTickets(ctx, BlockedShown)
	if err != nil {
		return nil, err
	}
	out := make([]WaitingTicket, 0, len(ts))
	for _, t := range ts {
		ls, err := s.TicketLinks(ctx, t.Ref())
		if err != nil {
			return nil, err
		}
		out = append(out, WaitingTicket{Ticket: NewTicket(t), Waits: ls.WaitingText()})
	}
	return out, nil
}
