package postgres

import (
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// ticketRow scans rows of ticketColumns (then extra columns) one after
// the other into the same destinations: fresh ones escape to the heap for
// each row, a third of the allocations of a list.
type ticketRow struct {
	t                board.Ticket
	criteria         string
	state, subState  string // not board.State: pgx scans a named type by reflection
	created, updated int64
	dest             []any
}

func newTicketRow(extra ...any) *ticketRow {
	r := &ticketRow{}
	r.dest = append([]any{&r.t.ID, &r.t.ProjectID, &r.t.ProjectSlug, &r.t.Number, &r.t.Title, &r.t.Description,
		&r.criteria, &r.t.Plan, &r.state, &r.subState, &r.t.Priority, &r.t.Branch, &r.created, &r.updated}, extra...)
	return r
}

// scan reads the next ticket.
func (r *ticketRow) scan(s scanner) (board.Ticket, error) {
	r.t = board.Ticket{}
	if err := s.Scan(r.dest...); err != nil {
		return board.Ticket{}, err
	}
	t := r.t
	t.State, t.SubState = board.State(r.state), board.SubState(r.subState)
	t.CreatedAt, t.UpdatedAt = sqlstore.FromMillis(r.created), sqlstore.FromMillis(r.updated)
	var err error
	if t.Criteria, err = sqlstore.DecodeCriteria(r.criteria); err != nil {
		return t, fmt.Errorf("ticket %s: criteria: %w", t.Ref(), err)
	}
	return t, nil
}
