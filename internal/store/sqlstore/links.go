package sqlstore

import (
	"context"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// NotWaiting returns the SQL condition that the ticket of alias (a row of
// tickets, e.g. "t") does not wait: no blocker of it and no sub-ticket of
// it is other than DONE. It is the rule of board.Candidate.Waiting, the
// same text the queue's triggers run (migration ticket_links), for any
// query that lists the tickets an agent may take.
func NotWaiting(alias string) string {
	return strings.NewReplacer("T.", alias+".").Replace(`NOT EXISTS (SELECT 1 FROM ticket_links wl JOIN tickets wo ON wo.id = wl.other_id
		WHERE wl.ticket_id = T.id AND wl.kind = 'blocked_by' AND wo.state <> 'DONE')
	AND NOT EXISTS (SELECT 1 FROM ticket_links wl JOIN tickets wo ON wo.id = wl.ticket_id
		WHERE wl.other_id = T.id AND wl.kind = 'parent' AND wo.state <> 'DONE')`)
}

// linkEnds reads the two tickets of l.
func linkEnds(ctx context.Context, q queryer, l board.Link) (t, o board.Ticket, err error) {
	if t, err = getTicket(ctx, q, l.Ticket); err != nil {
		return t, o, err
	}
	o, err = getTicket(ctx, q, l.Other)
	return t, o, err
}

// LinkTickets adds l after board.CheckLink; an existing link changes
// nothing.
func (db *DB) LinkTickets(ctx context.Context, l board.Link, actor board.Actor) error {
	if err := checkActor(actor); err != nil {
		return err
	}
	err := db.write(ctx, func(tx *tx) error {
		t, o, err := linkEnds(ctx, tx, l)
		if err != nil {
			return err
		}
		// Every link of the project, for board.CheckLink.
		existing, err := list(ctx, tx, func(s scanner) (board.Link, error) {
			e := board.Link{Ticket: board.Ref{Project: t.ProjectSlug}, Other: board.Ref{Project: t.ProjectSlug}}
			err := s.Scan(&e.Ticket.Number, &e.Other.Number, &e.Kind)
			return e, err
		}, `SELECT a.number, b.number, l.kind FROM ticket_links l
			JOIN tickets a ON a.id = l.ticket_id JOIN tickets b ON b.id = l.other_id
			WHERE a.project_id = ?`, t.ProjectID)
		if err != nil {
			return err
		}
		if slices.Contains(existing, l) {
			return nil
		}
		if err := board.CheckLink(l, existing); err != nil {
			return err
		}
		return tx.insertLink(t, o, l.Kind, actor)
	})
	return wrap(err, "link %s to %s", l.Ticket, l.Other)
}

// insertLink stores the link (t, o, kind) and its ticket.linked event.
func (tx *tx) insertLink(t, o board.Ticket, kind board.LinkKind, actor board.Actor) error {
	if _, err := tx.exec(`INSERT INTO ticket_links (ticket_id, other_id, kind, created_at) VALUES (?, ?, ?, ?)`,
		t.ID, o.ID, string(kind), tx.nowMs()); err != nil {
		return err
	}
	return tx.ticketEvent(board.EventTicketLinked, t, actor, map[string]any{"other": o.Ref().String(), "kind": kind})
}

// UnlinkTickets removes l; ENOTFOUND when there is no such link.
func (db *DB) UnlinkTickets(ctx context.Context, l board.Link, actor board.Actor) error {
	if err := checkActor(actor); err != nil {
		return err
	}
	if !l.Kind.Valid() {
		return board.Errorf(board.EINVALID, "unknown link kind %q; use blocked_by or parent", l.Kind)
	}
	err := db.write(ctx, func(tx *tx) error {
		t, o, err := linkEnds(ctx, tx, l)
		if err != nil {
			return err
		}
		err = tx.execOne(board.Errorf(board.ENOTFOUND, "%s has no %s link to %s", l.Ticket, l.Kind, l.Other),
			`DELETE FROM ticket_links WHERE ticket_id = ? AND other_id = ? AND kind = ?`, t.ID, o.ID, string(l.Kind))
		if err != nil {
			return err
		}
		return tx.ticketEvent(board.EventTicketUnlinked, t, actor, map[string]any{"other": o.Ref().String(), "kind": l.Kind})
	})
	return wrap(err, "unlink %s from %s", l.Ticket, l.Other)
}

// linkedQuery reads the tickets linked to one ticket: its own links
// (blockers, parent) with the other side, then the links to it (the
// tickets it blocks, its sub-tickets) with their tickets. Each row is the
// direction (0 own, 1 to it), the kind and the linked ticket.
const linkedQuery = `SELECT 0, l.kind, o.number, o.title, o.state FROM ticket_links l
		JOIN tickets o ON o.id = l.other_id WHERE l.ticket_id = ?
	UNION ALL
	SELECT 1, l.kind, o.number, o.title, o.state FROM ticket_links l
		JOIN tickets o ON o.id = l.ticket_id WHERE l.other_id = ?
	ORDER BY 3`

// TicketLinks returns a ticket's links in both directions.
func (db *DB) TicketLinks(ctx context.Context, ref board.Ref) (board.Links, error) {
	t, err := getTicket(ctx, db, ref)
	if err != nil {
		return board.Links{}, err
	}
	ls := board.NewLinks()
	err = each(ctx, db, func(s scanner) error {
		var dir int
		var kind board.LinkKind
		o := board.LinkedTicket{Ref: board.Ref{Project: ref.Project}}
		err := s.Scan(&dir, &kind, &o.Ref.Number, &o.Title, &o.State)
		ls.Add(dir == 0, kind, o)
		return err
	}, linkedQuery, t.ID, t.ID)
	return result(ls, wrap(err, "read links of %s", ref))
}

// CreateSubTickets creates s.Tickets as sub-tickets of s.Parent in one
// transaction, with s.Comment on the parent when it has content.
func (db *DB) CreateSubTickets(ctx context.Context, s store.SubTickets) ([]board.Ticket, error) {
	if err := checkActor(s.Actor); err != nil {
		return nil, err
	}
	ts, err := board.NewSubTickets(s.Parent, s.Tickets, s.Comment)
	if err != nil {
		return nil, err
	}
	err = db.write(ctx, func(tx *tx) error {
		parent, err := getTicket(ctx, tx, s.Parent)
		if err != nil {
			return err
		}
		if parent.State == board.Done {
			return board.Errorf(board.EREFUSED, "%s is DONE; move it back before giving it sub-tickets", s.Parent)
		}
		for i := range ts {
			if err := db.insertTicket(tx, &ts[i], s.Actor); err != nil {
				return err
			}
			if err := tx.insertLink(ts[i], parent, board.LinkParent, s.Actor); err != nil {
				return err
			}
		}
		if s.Comment.Content != "" {
			_, err = tx.addComment(&parent, s.Comment)
		}
		return err
	})
	return result(ts, wrap(err, "create sub-tickets of %s", s.Parent))
}

// WaitingQuery lists the tickets agents would work on that wait, driven
// by the links (joined in that order: reading tickets by state first
// would read every ticket in flight), so that a board without links reads
// nothing. It is exported for the engines' query-plan tests.
func (db *DB) WaitingQuery() string {
	return `SELECT ` + TicketColumns + ` FROM (
		SELECT l.ticket_id AS id FROM ticket_links l JOIN tickets o ON o.id = l.other_id
			WHERE l.kind = 'blocked_by' AND o.state <> 'DONE'
		UNION SELECT l.other_id FROM ticket_links l JOIN tickets o ON o.id = l.ticket_id
			WHERE l.kind = 'parent' AND o.state <> 'DONE') w
	` + db.d.JoinInOrder + ` tickets t ON t.id = w.id
	JOIN projects p ON p.id = t.project_id
	WHERE t.state IN ('RESEARCH', 'IN_PROGRESS') AND t.sub_state <> 'blocked' AND p.active
	ORDER BY p.slug, t.number LIMIT ?`
}

// WaitingTickets lists the first limit tickets agents would work on but
// that wait for a blocker or a sub-ticket.
func (db *DB) WaitingTickets(ctx context.Context, limit int) ([]board.Ticket, error) {
	ts, err := list(ctx, db, newTicketRow(false).ticket, db.WaitingQuery(), limit)
	return result(ts, wrap(err, "list waiting tickets"))
}

// SubTicketProgress counts, per ticket of a project with sub-tickets,
// its sub-tickets and those DONE.
func (db *DB) SubTicketProgress(ctx context.Context, projectSlug string) (map[int]board.Progress, error) {
	p, err := getProject(ctx, db, projectSlug)
	if err != nil {
		return nil, err
	}
	out := map[int]board.Progress{}
	err = each(ctx, db, func(s scanner) error {
		var n int
		var pr board.Progress
		err := s.Scan(&n, &pr.Total, &pr.Done)
		out[n] = pr
		return err
	}, `SELECT pt.number, count(*), sum(CASE WHEN c.state = 'DONE' THEN 1 ELSE 0 END)
		FROM ticket_links l JOIN tickets pt ON pt.id = l.other_id JOIN tickets c ON c.id = l.ticket_id
		WHERE l.kind = 'parent' AND pt.project_id = ? GROUP BY pt.number`, p.ID)
	return result(out, wrap(err, "count sub-tickets of %s", projectSlug))
}
