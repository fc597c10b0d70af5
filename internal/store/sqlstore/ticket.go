package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// TicketColumns are the columns ticketRow reads, of tickets t joined to
// their projects p.
const TicketColumns = `t.id, t.project_id, p.slug, t.number, t.title, t.description, t.criteria, t.plan,
	t.state, t.sub_state, t.priority, t.branch, t.created_at, t.updated_at`

const ticketFrom = ` FROM tickets t JOIN projects p ON p.id = t.project_id`

// ticketRow scans rows of TicketColumns (then a pick class, for picks)
// one after the other into the same destinations of plain types: fresh
// ones escape to the heap for each row, and pgx scans named types and
// sql.Scanners slower (together twice the client's time of a pick on 100
// projects).
type ticketRow struct {
	t                board.Ticket
	criteria         string
	state, subState  string
	class            int
	created, updated int64
	dest             []any
}

// newTicketRow returns a ticketRow; withClass reads the pick class too.
func newTicketRow(withClass bool) *ticketRow {
	r := &ticketRow{}
	r.dest = []any{&r.t.ID, &r.t.ProjectID, &r.t.ProjectSlug, &r.t.Number, &r.t.Title, &r.t.Description, &r.criteria,
		&r.t.Plan, &r.state, &r.subState, &r.t.Priority, &r.t.Branch, &r.created, &r.updated}
	if withClass {
		r.dest = append(r.dest, &r.class)
	}
	return r
}

// ticket reads the next ticket.
func (r *ticketRow) ticket(s scanner) (board.Ticket, error) {
	r.t = board.Ticket{}
	if err := s.Scan(r.dest...); err != nil {
		return board.Ticket{}, err
	}
	t := r.t
	t.State, t.SubState = board.State(r.state), board.SubState(r.subState)
	t.CreatedAt, t.UpdatedAt = fromMillis(r.created), fromMillis(r.updated)
	var err error
	if t.Criteria, err = decodeCriteria(r.criteria); err != nil {
		return t, fmt.Errorf("ticket %s: criteria: %w", t.Ref(), err)
	}
	return t, nil
}

// pick reads the next ticket with its pick class.
func (r *ticketRow) pick(s scanner) (board.Pick, error) {
	t, err := r.ticket(s)
	return board.Pick{Ticket: t, Class: board.PickClass(r.class)}, err
}

// getTicket reads one ticket by reference.
func getTicket(ctx context.Context, q queryer, ref board.Ref) (board.Ticket, error) {
	// An unknown project is the error rather than the ticket: the real mistake.
	t, err := one(ctx, q, newTicketRow(false).ticket, func() error {
		if _, err := getProject(ctx, q, ref.Project); err != nil {
			return err
		}
		return board.Errorf(board.ENOTFOUND, "ticket %s not found", ref)
	},
		`SELECT `+TicketColumns+ticketFrom+` WHERE p.slug = ? AND t.number = ?`, ref.Project, ref.Number)
	return result(t, wrap(err, "read ticket %s", ref))
}

// getTicketByID reads one ticket by ID.
func getTicketByID(ctx context.Context, q queryer, id string) (board.Ticket, error) {
	t, err := one(ctx, q, newTicketRow(false).ticket, func() error { return board.Errorf(board.ENOTFOUND, "ticket with id %q not found", id) },
		`SELECT `+TicketColumns+ticketFrom+` WHERE t.id = ?`, id)
	return result(t, wrap(err, "read ticket %s", id))
}

// CreateTicket validates t and stores it in t.ProjectSlug's project with the
// next ticket number of that project. An empty state means BACKLOG; a new
// ticket may also start in RESEARCH or IN_PROGRESS, and has no sub-state.
func (db *DB) CreateTicket(ctx context.Context, t board.Ticket, actor board.Actor) (board.Ticket, error) {
	if err := checkActor(actor); err != nil {
		return board.Ticket{}, err
	}
	t, err := board.NewTicket(t)
	if err != nil {
		return board.Ticket{}, err
	}
	err = db.write(ctx, func(tx *tx) error { return db.insertTicket(tx, &t, actor) })
	return result(t, wrap(err, "create ticket in %s", t.ProjectSlug))
}

// insertTicket stores a new ticket t (already checked by board.NewTicket)
// with its ticket.created event, filling in its ID, number and times.
func (db *DB) insertTicket(tx *tx, t *board.Ticket, actor board.Actor) error {
	// Allocating the number and inserting the ticket in one IMMEDIATE
	// transaction is what keeps numbers gap-free under concurrent writers.
	err := tx.queryRow(`UPDATE projects SET last_ticket_number = last_ticket_number + 1
		WHERE slug = ? RETURNING id, last_ticket_number`, t.ProjectSlug).Scan(&t.ProjectID, &t.Number)
	if errors.Is(err, sql.ErrNoRows) {
		return projectNotFound(t.ProjectSlug)
	}
	if err != nil {
		return err
	}
	t.ID = db.newID()
	t.CreatedAt, t.UpdatedAt = tx.now, tx.now
	_, err = tx.exec(`INSERT INTO tickets (id, project_id, number, title, description, criteria, plan, state,
		sub_state, priority, branch, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?)`,
		t.ID, t.ProjectID, t.Number, t.Title, t.Description, encodeCriteria(t.Criteria), t.Plan, string(t.State),
		t.Priority, t.Branch, tx.nowMs(), tx.nowMs())
	if err != nil {
		return err
	}
	return tx.ticketEvent(board.EventTicketCreated, *t, actor, map[string]any{"title": t.Title, "state": t.State})
}

// Ticket returns one ticket.
func (db *DB) Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error) {
	return getTicket(ctx, db, ref)
}

// Tickets lists tickets matching f, by project slug then number. A filter
// naming an unknown project is an ENOTFOUND error, not an empty list.
func (db *DB) Tickets(ctx context.Context, f store.TicketFilter) ([]board.Ticket, error) {
	if err := db.checkFilter(ctx, f); err != nil {
		return nil, err
	}
	q, args := db.TicketsQuery(f)
	ts, err := list(ctx, db, newTicketRow(false).ticket, q, args...)
	return result(ts, wrap(err, "list tickets"))
}

// saveTicket writes t's mutable fields, stamped with the transaction's time.
func (tx *tx) saveTicket(t *board.Ticket) error {
	t.UpdatedAt = tx.now
	_, err := tx.exec(`UPDATE tickets SET title = ?, description = ?, criteria = ?, plan = ?, state = ?,
		sub_state = ?, priority = ?, branch = ?, updated_at = ? WHERE id = ?`,
		t.Title, t.Description, encodeCriteria(t.Criteria), t.Plan, string(t.State), string(t.SubState), t.Priority,
		t.Branch, tx.nowMs(), t.ID)
	return err
}

// UpdateTicket changes the fields set in u. A change that changes nothing
// writes nothing and records no event.
func (db *DB) UpdateTicket(ctx context.Context, ref board.Ref, u board.TicketPatch, actor board.Actor) (board.Ticket, error) {
	if err := checkActor(actor); err != nil {
		return board.Ticket{}, err
	}
	return onTicket(ctx, db, ref, "update ticket", func(tx *tx, t board.Ticket) (board.Ticket, error) {
		changed, err := u.Apply(&t)
		if err != nil || len(changed) == 0 {
			return t, err
		}
		if err := tx.saveTicket(&t); err != nil {
			return t, err
		}
		return t, tx.ticketEvent(board.EventTicketUpdated, t, actor, map[string]any{"fields": changed})
	})
}

// checkFilter reports what is wrong with f: an unknown state or project.
func (db *DB) checkFilter(ctx context.Context, f store.TicketFilter) error {
	if f.State != "" && !f.State.Valid() {
		return board.Errorf(board.EINVALID, "unknown state %q; use one of BACKLOG, RESEARCH, IN_PROGRESS, VERIFICATION, DONE", f.State)
	}
	if f.Limit < 0 {
		return board.Errorf(board.EINVALID, "limit must be 0 (all) or more, got %d", f.Limit)
	}
	if f.ProjectSlug != "" {
		if _, err := getProject(ctx, db, f.ProjectSlug); err != nil {
			return err
		}
	}
	return nil
}

// TicketsQuery returns the query listing the tickets f selects and its
// arguments, exported for the engines' query-plan tests.
func (db *DB) TicketsQuery(f store.TicketFilter) (string, []any) {
	where, args := ticketsWhere(f)
	from := ticketFrom
	if f.Blocked {
		// Projects first, in slug order, then each one's entries of
		// tickets_blocked, already in number order: no sort, and a limit
		// stops the reading. The other way round reads every blocked
		// ticket's row to sort them (0.7 ms for 1,200 of them).
		from = ` FROM projects p ` + db.d.JoinInOrder + ` tickets t ON t.project_id = p.id`
	}
	q := `SELECT ` + TicketColumns + from + where + ` ORDER BY p.slug, t.number`
	if f.Limit > 0 {
		q, args = q+` LIMIT ?`, append(args, f.Limit)
	}
	return q, args
}

// CountQuery returns the query of CountTickets and its arguments,
// exported for the engines' query-plan tests.
func CountQuery(f store.TicketFilter) (string, []any) {
	where, args := ticketsWhere(f)
	from := ticketFrom
	if f.ProjectSlug == "" {
		from = ` FROM tickets t` // every ticket has its project: no join to count
	}
	return `SELECT count(*)` + from + where, args
}

// ticketsWhere returns the conditions of f. They are added only when set,
// so that SQLite can use the project's, the state's or the blocked tickets'
// index instead of scanning every ticket.
func ticketsWhere(f store.TicketFilter) (string, []any) {
	q, args := ` WHERE true`, []any{}
	if f.ProjectSlug != "" {
		q, args = q+` AND p.slug = ?`, append(args, f.ProjectSlug)
	}
	if f.State != "" {
		q, args = q+` AND t.state = ?`, append(args, string(f.State))
	}
	if f.Blocked {
		q += ` AND t.sub_state = 'blocked'` // literally, to match tickets_blocked
	}
	return q, args
}

// movedEvent appends the ticket.moved event of t, moved from from.
func (tx *tx) movedEvent(t board.Ticket, from board.State, actor board.Actor) error {
	return tx.ticketEvent(board.EventTicketMoved, t, actor, map[string]any{"from": from, "to": t.State, "subState": t.SubState})
}

// CountTickets counts the tickets matching f, ignoring f.Limit.
func (db *DB) CountTickets(ctx context.Context, f store.TicketFilter) (int, error) {
	if err := db.checkFilter(ctx, f); err != nil {
		return 0, err
	}
	q, args := CountQuery(f)
	var n int
	err := db.queryRowContext(ctx, q, args...).Scan(&n)
	return result(n, wrap(err, "count tickets"))
}

// MoveTicket applies board.CheckMove and board.ApplyMove, and adds the
// comment board.MoveComment asks for (a person's feedback when work goes
// back from VERIFICATION) in the same transaction. The rules that follow the project's
// agent settings (taking BACKLOG tickets, a person approving plans) read
// them from the project here: the caller's req.Project is ignored.
func (db *DB) MoveTicket(ctx context.Context, ref board.Ref, req board.MoveRequest, authorName string) (board.Ticket, error) {
	return onTicket(ctx, db, ref, "move ticket", func(tx *tx, t board.Ticket) (board.Ticket, error) {
		req.Project = board.AgentSettings{}
		err := tx.queryRow(`SELECT settings FROM projects WHERE id = ?`, t.ProjectID).Scan(settingsJSON{&req.Project})
		if err == nil {
			err = board.CheckMove(t, req)
		}
		if err != nil {
			return t, err
		}
		from := t.State
		t = board.ApplyMove(t, req)
		feedback, err := board.MoveComment(from, req, authorName)
		if err == nil {
			err = tx.saveTicket(&t)
		}
		if err == nil {
			err = tx.movedEvent(t, from, req.Actor)
		}
		if err == nil && feedback != nil {
			_, err = tx.addComment(&t, *feedback)
		}
		return t, err
	})
}
