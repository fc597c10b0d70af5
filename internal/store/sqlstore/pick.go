package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// PickQuery returns the query of Pick for one project, or every active
// project when projectSlug is empty, and its arguments: Dialect.PickQuery
// with a statement of its own for one project, so that each has its own
// plan. It is exported for the engines' query-plan tests.
func (db *DB) PickQuery(projectSlug string) (string, []any) {
	if projectSlug == "" {
		return db.pickAll, nil
	}
	return db.pickOne, []any{projectSlug}
}

// Pick returns, for each active project (or only the named one), the ticket
// the pick policy chooses, by project slug. Projects with nothing to pick
// are left out; so is a named project that is archived. It agrees with
// board.PickTicket. It reads a row per project that the engine's triggers
// keep (Dialect.PickQuery), through a statement prepared once where the
// engine prepares them, and reads the project again only when a named one
// has nothing to pick, to tell it from an unknown one.
func (db *DB) Pick(ctx context.Context, projectSlug string) ([]board.Pick, error) {
	q, args := db.PickQuery(projectSlug)
	rows, err := db.hotQuery(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("pick: %w", err)
	}
	picks, err := collect(rows, scanPick)
	if err != nil {
		return nil, fmt.Errorf("pick: %w", err)
	}
	if projectSlug != "" && len(picks) == 0 {
		if _, err := getProject(ctx, db, projectSlug); err != nil {
			return nil, err
		}
	}
	return picks, nil
}

// hotQuery runs a query of a hot path through the statement
// Dialect.Prepare keeps, or as any other where the engine has none.
func (db *DB) hotQuery(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if db.d.Prepare == nil {
		return db.queryContext(ctx, query, args...)
	}
	st, err := db.d.Prepare(ctx, db.rebind(query))
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// scanPick reads a row of TicketColumns and the pick class.
func scanPick(s scanner) (board.Pick, error) {
	var p board.Pick
	var err error
	p.Ticket, err = scanTicket(s, &p.Class)
	return p, err
}

// Overview lists projects with their ticket counts and picks in one query,
// Dialect.OverviewQuery: a row per project, whatever the number of
// tickets, from the tables the engine's triggers keep. It is what
// `bonsai status` reads instead of Projects, TicketCounts and Pick: one
// statement and a row per project, where the three took 0.2 ms more in a
// fresh SQLite process on 100 projects.
func (db *DB) Overview(ctx context.Context, f store.ProjectFilter) ([]store.ProjectOverview, error) {
	out, err := list(ctx, db, scanOverview, db.d.OverviewQuery, f.IncludeArchived)
	return result(out, wrap(err, "overview"))
}

// scanOverview reads a row of Dialect.OverviewQuery.
func scanOverview(s scanner) (store.ProjectOverview, error) {
	var (
		o                      store.ProjectOverview
		p                      = &o.Project
		pairs                  sql.NullString
		number, priority, cls  sql.NullInt64
		title, state, subState sql.NullString
	)
	err := s.Scan(&p.Slug, &p.Name, &p.Active, &p.Agent.Model, &p.Agent.PermissionMode, &p.Agent.Sandbox, &pairs,
		&number, &title, &state, &subState, &priority, &cls)
	if err != nil {
		return o, err
	}
	if o.Counts, err = parseCounts(pairs.String); err != nil {
		return o, fmt.Errorf("project %s: %w", p.Slug, err)
	}
	if number.Valid {
		o.Pick = &board.Pick{Class: board.PickClass(cls.Int64), Ticket: board.Ticket{
			ProjectSlug: p.Slug, Number: int(number.Int64), Title: title.String, State: board.State(state.String),
			SubState: board.SubState(subState.String), Priority: int(priority.Int64)}}
	}
	return o, nil
}
