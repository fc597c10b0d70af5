package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// overviewQuery reads each project with its ticket counts, as the "STATE n"
// pairs of countsQuery, and its ticket_queue row, all kept by triggers: a
// row per project, whatever the number of tickets. Archived projects have
// no pick. The three settings shown are read from the settings JSON
// without decoding it all.
const overviewQuery = `SELECT p.slug, p.name, p.active, COALESCE(p.settings ->> '$.model', ''),
	COALESCE(p.settings ->> '$.permissionMode', ''), COALESCE(p.settings ->> '$.sandbox', ''),
	(SELECT group_concat(c.state || ' ' || c.n) FROM ticket_counts c WHERE c.project_id = p.id AND c.n > 0),
	q.number, q.title, q.state, q.sub_state, q.priority, q.pick_class
	FROM projects p
	LEFT JOIN ticket_queue q ON q.project_id = p.id AND p.active = 1 AND ` + queueAllowed + `
	WHERE p.active = 1 OR ?1
	ORDER BY p.slug`

// Overview lists projects with their ticket counts and picks in one query.
// It is what `bonsai status` reads instead of Projects, TicketCounts and
// Pick: one statement to prepare and a row per project, where the three
// took 0.2 ms more in a fresh process on 100 projects.
func (db *DB) Overview(ctx context.Context, f store.ProjectFilter) ([]store.ProjectOverview, error) {
	rows, err := db.sql.QueryContext(ctx, overviewQuery, f.IncludeArchived)
	if err != nil {
		return nil, fmt.Errorf("overview: %w", err)
	}
	defer rows.Close()
	out := []store.ProjectOverview{}
	for rows.Next() {
		var (
			o                      store.ProjectOverview
			p                      = &o.Project
			pairs                  sql.NullString
			number, priority, cls  sql.NullInt64
			title, state, subState sql.NullString
		)
		if err := rows.Scan(&p.Slug, &p.Name, &p.Active, &p.Agent.Model, &p.Agent.PermissionMode, &p.Agent.Sandbox, &pairs,
			&number, &title, &state, &subState, &priority, &cls); err != nil {
			return nil, fmt.Errorf("overview: %w", err)
		}
		if o.Counts, err = sqlstore.ParseCounts(pairs.String); err != nil {
			return nil, fmt.Errorf("overview: project %s: %w", p.Slug, err)
		}
		if number.Valid {
			o.Pick = &board.Pick{Class: board.PickClass(cls.Int64), Ticket: board.Ticket{
				ProjectSlug: p.Slug, Number: int(number.Int64), Title: title.String, State: board.State(state.String),
				SubState: board.SubState(subState.String), Priority: int(priority.Int64)}}
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("overview: %w", err)
	}
	return out, nil
}
