package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// queueAllowed keeps a ticket_queue row q of project p unless it is a
// BACKLOG ticket (class 5, board.ClassBacklog) and p's agents do not take
// BACKLOG tickets: ticket_queue holds them for every project.
const queueAllowed = `(q.queue_class < 5 OR p.take_backlog)`

// pickColumns are a ticket's columns as scanTicket reads them, from its
// project p and its row q of ticket_queue, which holds the whole ticket
// (migration queue_tickets), and the pick class.
const pickColumns = `q.ticket_id, q.project_id, p.slug, q.number, q.title, q.description, q.criteria, q.plan,
	q.state, q.sub_state, q.priority, q.branch, q.created_at, q.updated_at, q.queue_class`

// pickQuery reads, for each active project, its row of ticket_queue: the
// ticket the pick policy chooses there, kept by the trigger of migrations
// 0003 and queue_tickets. It reads no ticket. See docs/postgres.md.
const pickQuery = `SELECT ` + pickColumns + `
	FROM projects p
	JOIN ticket_queue q ON q.project_id = p.id AND ` + queueAllowed + `
	WHERE p.active
	ORDER BY p.slug`

// pickProjectQuery is pickQuery for one project: a statement of its own,
// so that each has its own plan.
const pickProjectQuery = `SELECT ` + pickColumns + `
	FROM projects p
	JOIN ticket_queue q ON q.project_id = p.id AND ` + queueAllowed + `
	WHERE p.active AND p.slug = $1`

// Pick returns, for each active project (or only the named one), the ticket
// the pick policy chooses, by project slug. Projects with nothing to pick
// are left out; so is a named project that is archived. It agrees with
// board.PickTicket. It costs one round trip to the server, and a second
// for a named project with nothing to pick, to tell it from an unknown one.
func (db *DB) Pick(ctx context.Context, projectSlug string) ([]board.Pick, error) {
	var rows pgx.Rows
	var err error
	// room for every pick: growing the slice copies the picks again, a
	// tenth of the client's time on 100 projects
	size := 1
	if projectSlug == "" {
		rows, err = db.pool.Query(ctx, pickQuery)
		size = 128
	} else {
		rows, err = db.pool.Query(ctx, pickProjectQuery, projectSlug)
	}
	if err != nil {
		return nil, fmt.Errorf("pick: %w", err)
	}
	picks, err := scanPicks(rows, make([]board.Pick, 0, size))
	if err != nil {
		return nil, fmt.Errorf("pick: %w", err)
	}
	if projectSlug != "" && len(picks) == 0 {
		if _, err := db.Project(ctx, projectSlug); err != nil {
			return nil, err
		}
	}
	return picks, nil
}

// scanPicks appends the picks of rows to picks.
func scanPicks(rows pgx.Rows, picks []board.Pick) ([]board.Pick, error) {
	defer rows.Close()
	var class int // not board.PickClass: pgx scans a named type by reflection
	r := newTicketRow(&class)
	for rows.Next() {
		t, err := r.scan(rows)
		if err != nil {
			return nil, err
		}
		picks = append(picks, board.Pick{Ticket: t, Class: board.PickClass(class)})
	}
	return picks, rows.Err()
}

// countsByProject is ticket_counts grouped by project, with a column per
// state of board.States (n0, n1, …) and a row per project that has
// tickets, for Overview.
var countsByProject = `(SELECT project_id, ` +
	stateColumns("COALESCE(sum(n) FILTER (WHERE state = '%[2]s'), 0) AS n%[1]d") + `
	FROM ticket_counts WHERE n > 0 GROUP BY project_id)`

// overviewQuery reads each project with its ticket counts (ticket_counts
// grouped once by project, a column per state of board.States: a
// subquery per project cost 1.6 ms on 100 projects, the grouping 0.25,
// and a JSON object per project for the counts was 40% of the client's
// allocations) and its ticket_queue row: a row per project, whatever the
// number of tickets, reading no ticket. Archived projects have no pick.
// The three settings shown are read from the settings JSON without
// decoding it all.
var overviewQuery = `SELECT p.slug, p.name, p.active, COALESCE(p.settings::json ->> 'model', ''),
	COALESCE(p.settings::json ->> 'permissionMode', ''), COALESCE(p.settings::json ->> 'sandbox', ''), ` + stateColumns("COALESCE(c.n%[1]d, 0)") + `,
	q.project_id IS NOT NULL, COALESCE(q.number, 0), COALESCE(q.title, ''), COALESCE(q.state, ''),
	COALESCE(q.sub_state, ''), COALESCE(q.priority, 0), COALESCE(q.queue_class, 0)
	FROM projects p
	LEFT JOIN ` + countsByProject + ` c ON c.project_id = p.id
	LEFT JOIN ticket_queue q ON q.project_id = p.id AND p.active AND ` + queueAllowed + `
	WHERE p.active OR $1
	ORDER BY p.slug`

// stateColumns returns a column for each state of board.States: format
// with the state's index in board.States (%[1]d) and the state (%[2]s).
func stateColumns(format string) string {
	cols := make([]string, len(board.States))
	for i, st := range board.States {
		cols[i] = fmt.Sprintf(format, i, st)
	}
	return strings.Join(cols, ", ")
}

// Overview lists projects with their ticket counts and picks in one query.
func (db *DB) Overview(ctx context.Context, f store.ProjectFilter) ([]store.ProjectOverview, error) {
	rows, err := db.pool.Query(ctx, overviewQuery, f.IncludeArchived)
	if err != nil {
		return nil, fmt.Errorf("overview: %w", err)
	}
	defer rows.Close()
	// One set of destinations for all rows (fresh ones escape to the heap
	// each row), and plain types: pgx scans named ones by reflection.
	var (
		slug, name, model, perm, sandbox, title, state, subState string
		active, picked                                           bool
		number, priority, class                                  int
		counts                                                   = make([]int, len(board.States))
	)
	dest := []any{&slug, &name, &active, &model, &perm, &sandbox}
	for i := range counts {
		dest = append(dest, &counts[i])
	}
	dest = append(dest, &picked, &number, &title, &state, &subState, &priority, &class)
	out := []store.ProjectOverview{}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("overview: %w", err)
		}
		o := store.ProjectOverview{Project: board.Project{Slug: slug, Name: name, Active: active, Agent: board.AgentSettings{
			Model: model, PermissionMode: board.PermissionMode(perm), Sandbox: board.SandboxMode(sandbox)}},
			Counts: countsMap(counts)}
		if picked {
			o.Pick = &board.Pick{Class: board.PickClass(class), Ticket: board.Ticket{
				ProjectSlug: slug, Number: number, Title: title, State: board.State(state),
				SubState: board.SubState(subState), Priority: priority}}
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("overview: %w", err)
	}
	return out, nil
}

// countsMap maps the states of board.States to their counts, leaving out
// those without tickets.
func countsMap(counts []int) map[board.State]int {
	m := make(map[board.State]int, len(board.States))
	for i, n := range counts {
		if n > 0 {
			m[board.States[i]] = n
		}
	}
	return m
}
