package store

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Links are the tickets' dependencies: sub-tickets and blockers
// (board.Link). A ticket waits, and is not picked, while a blocker or a
// sub-ticket of it is not DONE.
type Links interface {
	// LinkTickets adds l, after board.CheckLink: refused with EINVALID
	// for a cycle (named), a link across projects or to the ticket
	// itself, ECONFLICT for a second parent. Adding an existing link
	// changes nothing.
	LinkTickets(ctx context.Context, l board.Link, actor board.Actor) error
	// UnlinkTickets removes l; ENOTFOUND when there is no such link.
	UnlinkTickets(ctx context.Context, l board.Link, actor board.Actor) error
	// TicketLinks returns a ticket's links in both directions.
	TicketLinks(ctx context.Context, ref board.Ref) (board.Links, error)
	// CreateSubTickets creates s.Tickets as sub-tickets of s.Parent, in
	// its project, in one transaction, with s.Comment on the parent when
	// it has content. The parent must not be DONE.
	CreateSubTickets(ctx context.Context, s SubTickets) ([]board.Ticket, error)
	// SubTicketProgress returns, for each ticket of a project that has
	// sub-tickets, by number, how many it has and how many are DONE.
	SubTicketProgress(ctx context.Context, projectSlug string) (map[int]board.Progress, error)
	// WaitingTickets lists the first limit tickets of active projects
	// that agents would work on (RESEARCH or IN_PROGRESS, not blocked on
	// a person) but that wait for a blocker or a sub-ticket, by project
	// slug and number. Its cost follows the number of links, not of
	// tickets.
	WaitingTickets(ctx context.Context, limit int) ([]board.Ticket, error)
}

// SubTickets is what CreateSubTickets creates.
type SubTickets struct {
	Parent  board.Ref
	Tickets []board.Ticket
	Actor   board.Actor
	// Comment, when its Content is set, is posted on the parent.
	Comment board.Comment
}
