package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

const ticketColumns = `t.id, t.project_id, p.slug, t.number, t.title, t.description, t.criteria, t.plan,
	t.state, t.sub_state, t.priority, t.branch, t.created_at, t.updated_at`

const ticketFrom = ` FROM tickets t JOIN projects p ON p.id = t.project_id`

func scanTicket(s scanner, extra ...any) (board.Ticket, error) {
	return newTicketRow(extra...).scan(s)
}

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
	t.CreatedAt, t.UpdatedAt = fromMillis(r.created), fromMillis(r.updated)
	var err error
	if t.Criteria, err = decodeCriteria(r.criteria); err != nil {
		return t, fmt.Errorf("ticket %s: criteria: %w", t.Ref(), err)
	}
	return t, nil
}

// ticketNotFound is the error for an unknown ticket: the project's when the
// project does not exist either, so the message points at the real mistake.
func ticketNotFound(ctx context.Context, q querier, ref board.Ref) error {
	if _, err := getProject(ctx, q, ref.Project); err != nil {
		return err
	}
	return board.Errorf(board.ENOTFOUND, "ticket %s not found", ref)
}

// getTicket reads one ticket by reference.
func getTicket(ctx context.Context, q querier, ref board.Ref) (board.Ticket, error) {
	t, err := scanTicket(q.QueryRow(ctx,
		`SELECT `+ticketColumns+ticketFrom+` WHERE p.slug = $1 AND t.number = $2`, ref.Project, ref.Number))
	if noRows(err) {
		return board.Ticket{}, ticketNotFound(ctx, q, ref)
	}
	if err != nil {
		return board.Ticket{}, fmt.Errorf("read ticket %s: %w", ref, err)
	}
	return t, nil
}

// getTicketByID reads one ticket by ID.
func getTicketByID(ctx context.Context, q querier, id string) (board.Ticket, error) {
	t, err := scanTicket(q.QueryRow(ctx, `SELECT `+ticketColumns+ticketFrom+` WHERE t.id = $1`, id))
	if noRows(err) {
		return board.Ticket{}, board.Errorf(board.ENOTFOUND, "ticket with id %q not found", id)
	}
	if err != nil {
		return board.Ticket{}, fmt.Errorf("read ticket %s: %w", id, err)
	}
	return t, nil
}

// CreateTicket validates t and stores it in t.ProjectSlug's project with the
// next ticket number of that project. An empty state means BACKLOG.
func (db *DB) CreateTicket(ctx context.Context, t board.Ticket, actor board.Actor) (board.Ticket, error) {
	if !actor.Valid() {
		return board.Ticket{}, board.Errorf(board.EINVALID, "unknown actor %q", actor)
	}
	t, err := board.NewTicket(t)
	if err != nil {
		return board.Ticket{}, err
	}
	criteria := encodeCriteria(t.Criteria)
	err = db.write(ctx, func(tx *tx) error { return db.insertTicket(tx, &t, criteria, actor) })
	if err != nil {
		return board.Ticket{}, wrap(err, "create ticket in %s", t.ProjectSlug)
	}
	return t, nil
}

// insertTicket stores a new ticket t (already checked by board.NewTicket,
// its criteria encoded) with its ticket.created event, filling in its ID,
// number and times.
func (db *DB) insertTicket(tx *tx, t *board.Ticket, criteria string, actor board.Actor) error {
	// The UPDATE locks the project's row until the commit: numbers are
	// gap-free and unique however many writers there are.
	err := tx.queryRow(`UPDATE projects SET last_ticket_number = last_ticket_number + 1
		WHERE slug = $1 RETURNING id, last_ticket_number`, t.ProjectSlug).Scan(&t.ProjectID, &t.Number)
	if noRows(err) {
		return projectNotFound(t.ProjectSlug)
	}
	if err != nil {
		return err
	}
	t.ID = db.newID()
	t.CreatedAt, t.UpdatedAt = tx.now, tx.now
	_, err = tx.exec(`INSERT INTO tickets (id, project_id, number, title, description, criteria, plan, state,
		sub_state, priority, branch, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '', $9, $10, $11, $11)`,
		t.ID, t.ProjectID, t.Number, t.Title, t.Description, criteria, t.Plan, string(t.State),
		t.Priority, t.Branch, tx.nowMs())
	if err != nil {
		return err
	}
	return tx.event(board.EventTicketCreated, t.ProjectID, t.ID, actor,
		map[string]any{"ref": t.Ref().String(), "title": t.Title, "state": t.State})
}

// Ticket returns one ticket.
func (db *DB) Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error) {
	return getTicket(ctx, db.pool, ref)
}

// Tickets lists tickets matching f, by project slug then number. A filter
// naming an unknown project is an ENOTFOUND error, not an empty list.
func (db *DB) Tickets(ctx context.Context, f store.TicketFilter) ([]board.Ticket, error) {
	if err := db.checkFilter(ctx, f); err != nil {
		return nil, err
	}
	where, args := ticketsWhere(f)
	q := `SELECT ` + ticketColumns + ticketFrom + where + ` ORDER BY p.slug, t.number`
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q += ` LIMIT $` + strconv.Itoa(len(args))
	}
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list tickets: %w", err)
	}
	defer rows.Close()
	ts := []board.Ticket{}
	r := newTicketRow()
	for rows.Next() {
		t, err := r.scan(rows)
		if err != nil {
			return nil, fmt.Errorf("list tickets: %w", err)
		}
		ts = append(ts, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tickets: %w", err)
	}
	return ts, nil
}

// saveTicket writes t's mutable fields, stamped with the transaction's time.
func (tx *tx) saveTicket(t *board.Ticket) error {
	t.UpdatedAt = tx.now
	_, err := tx.exec(`UPDATE tickets SET title = $1, description = $2, criteria = $3, plan = $4, state = $5,
		sub_state = $6, priority = $7, branch = $8, updated_at = $9 WHERE id = $10`,
		t.Title, t.Description, encodeCriteria(t.Criteria), t.Plan, string(t.State), string(t.SubState), t.Priority,
		t.Branch, tx.nowMs(), t.ID)
	return err
}

// UpdateTicket changes the fields set in u. A change that changes nothing
// writes nothing and records no event.
func (db *DB) UpdateTicket(ctx context.Context, ref board.Ref, u board.TicketPatch, actor board.Actor) (board.Ticket, error) {
	if !actor.Valid() {
		return board.Ticket{}, board.Errorf(board.EINVALID, "unknown actor %q", actor)
	}
	var t board.Ticket
	err := db.write(ctx, func(tx *tx) error {
		var err error
		if t, err = getTicket(ctx, tx, ref); err != nil {
			return err
		}
		changed, err := u.Apply(&t)
		if err != nil || len(changed) == 0 {
			return err
		}
		if err := tx.saveTicket(&t); err != nil {
			return err
		}
		return tx.event(board.EventTicketUpdated, t.ProjectID, t.ID, actor,
			map[string]any{"ref": ref.String(), "fields": changed})
	})
	if err != nil {
		return board.Ticket{}, wrap(err, "update ticket %s", ref)
	}
	return t, nil
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
		if _, err := getProject(ctx, db.pool, f.ProjectSlug); err != nil {
			return err
		}
	}
	return nil
}

// ticketsWhere returns the conditions of f, only those that are set, so
// the planner can use the project's, the state's or the blocked tickets'
// index.
func ticketsWhere(f store.TicketFilter) (string, []any) {
	q, args := ` WHERE true`, []any{}
	if f.ProjectSlug != "" {
		args = append(args, f.ProjectSlug)
		q += ` AND p.slug = $` + strconv.Itoa(len(args))
	}
	if f.State != "" {
		args = append(args, string(f.State))
		q += ` AND t.state = $` + strconv.Itoa(len(args))
	}
	if f.Blocked {
		q += ` AND t.sub_state = 'blocked'` // literally, to match tickets_blocked
	}
	return q, args
}

// CountTickets counts the tickets matching f, ignoring f.Limit.
func (db *DB) CountTickets(ctx context.Context, f store.TicketFilter) (int, error) {
	if err := db.checkFilter(ctx, f); err != nil {
		return 0, err
	}
	where, args := ticketsWhere(f)
	from := ticketFrom
	if f.ProjectSlug == "" {
		from = ` FROM tickets t`
	}
	var n int
	if err := db.pool.QueryRow(ctx, `SELECT count(*)`+from+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count tickets: %w", err)
	}
	return n, nil
}

// TicketCounts counts tickets per project slug and state, archived projects
// included, from ticket_counts (kept by a trigger): a row per project and
// state, however many tickets. (A row per project, from countsByProject,
// saves the client a third of its time but costs the server as much.)
func (db *DB) TicketCounts(ctx context.Context) (map[string]map[board.State]int, error) {
	rows, err := db.pool.Query(ctx, `SELECT p.slug, c.state, c.n FROM ticket_counts c
		JOIN projects p ON p.id = c.project_id WHERE c.n > 0`)
	if err != nil {
		return nil, fmt.Errorf("count tickets: %w", err)
	}
	defer rows.Close()
	out := map[string]map[board.State]int{}
	// One set of destinations for all rows (fresh ones escape to the heap
	// each row, half of the allocations of a call), and plain types: pgx
	// scans named ones by reflection.
	var slug, state string
	var n int
	dest := []any{&slug, &state, &n}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("count tickets: %w", err)
		}
		m := out[slug]
		if m == nil {
			m = make(map[board.State]int, len(board.States))
			out[slug] = m
		}
		m[board.State(state)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count tickets: %w", err)
	}
	return out, nil
}
