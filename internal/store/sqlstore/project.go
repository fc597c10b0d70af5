package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

const projectColumns = `id, slug, name, repo, default_branch, active, model, budget_usd, verify, created_at, updated_at,
	ticket_tokens, run_budget_usd, run_tokens, daily_budget_usd, daily_tokens, take_backlog, permission_mode,
	allow_commands, ask_commands, sandbox, network, allow_hosts,
	land, land_style, update_style, engine, thinking, mcp_servers, schedule_tools`

func scanProject(s scanner) (board.Project, error) {
	var p board.Project
	var created, updated int64
	err := s.Scan(&p.ID, &p.Slug, &p.Name, &p.Repo, &p.DefaultBranch, &p.Active,
		&p.Agent.Model, &p.Agent.BudgetUSD, &p.Agent.Verify, &created, &updated,
		&p.Agent.TicketTokens, &p.Agent.RunBudgetUSD, &p.Agent.RunTokens, &p.Agent.DailyBudgetUSD, &p.Agent.DailyTokens,
		&p.Agent.TakeBacklog, &p.Agent.PermissionMode,
		jsonList{&p.Agent.Allow}, jsonList{&p.Agent.Ask}, &p.Agent.Sandbox, &p.Agent.Network, jsonList{&p.Agent.AllowHosts},
		&p.Agent.Land, &p.Agent.LandStyle, &p.Agent.UpdateStyle, &p.Agent.Engine, &p.Agent.Thinking,
		jsonList{&p.Agent.MCPServers}, &p.Agent.ScheduleTools)
	p.CreatedAt, p.UpdatedAt = fromMillis(created), fromMillis(updated)
	return p, err
}

// projectNotFound is the error for an unknown slug.
func projectNotFound(slug string) error {
	return board.Errorf(board.ENOTFOUND, "project %q not found", slug)
}

// getProject reads one project by slug.
func getProject(ctx context.Context, q queryer, slug string) (board.Project, error) {
	p, err := scanProject(q.queryRowContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE slug = ?`, slug))
	if errors.Is(err, sql.ErrNoRows) {
		return board.Project{}, projectNotFound(slug)
	}
	if err != nil {
		return board.Project{}, fmt.Errorf("read project %s: %w", slug, err)
	}
	return p, nil
}

// CreateProject validates p, assigns its ID and timestamps and stores it as
// an active project.
func (db *DB) CreateProject(ctx context.Context, p board.Project) (board.Project, error) {
	if err := p.ValidateNew(); err != nil {
		return board.Project{}, err
	}
	err := db.write(ctx, func(tx *tx) error {
		var exists bool
		err := tx.queryRow(`SELECT EXISTS (SELECT 1 FROM projects WHERE slug = ?)`, p.Slug).Scan(&exists)
		if err != nil {
			return err
		}
		if exists {
			return board.Errorf(board.ECONFLICT, "project %q already exists", p.Slug)
		}
		p.ID, p.Active = db.newID(), true
		p.CreatedAt, p.UpdatedAt = tx.now, tx.now
		_, err = tx.exec(`INSERT INTO projects (`+projectColumns+`) VALUES (?, ?, ?, ?, ?, true, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
			?, ?, ?, ?, ?, ?, ?)`,
			p.ID, p.Slug, p.Name, p.Repo, p.DefaultBranch, p.Agent.Model, p.Agent.BudgetUSD, p.Agent.Verify,
			tx.nowMs(), tx.nowMs(),
			p.Agent.TicketTokens, p.Agent.RunBudgetUSD, p.Agent.RunTokens, p.Agent.DailyBudgetUSD, p.Agent.DailyTokens,
			p.Agent.TakeBacklog, string(p.Agent.PermissionMode),
			jsonList{&p.Agent.Allow}, jsonList{&p.Agent.Ask}, string(p.Agent.Sandbox), string(p.Agent.Network), jsonList{&p.Agent.AllowHosts},
			string(p.Agent.Land), string(p.Agent.LandStyle), string(p.Agent.UpdateStyle), string(p.Agent.Engine), string(p.Agent.Thinking),
			jsonList{&p.Agent.MCPServers}, p.Agent.ScheduleTools)
		if err != nil {
			return err
		}
		return tx.event(board.EventProjectCreated, p.ID, "", board.Human, map[string]string{"slug": p.Slug, "name": p.Name})
	})
	if err != nil {
		return board.Project{}, wrap(err, "create project %s", p.Slug)
	}
	return p, nil
}

// Project returns the project with the given slug, archived or not.
func (db *DB) Project(ctx context.Context, slug string) (board.Project, error) {
	return getProject(ctx, db, slug)
}

// Projects lists projects by slug; archived ones only when asked.
func (db *DB) Projects(ctx context.Context, f store.ProjectFilter) ([]board.Project, error) {
	q := `SELECT ` + projectColumns + ` FROM projects WHERE active OR ? ORDER BY slug`
	rows, err := db.queryContext(ctx, q, f.IncludeArchived)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	ps, err := collect(rows, scanProject)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	return ps, nil
}

// UpdateProject changes the fields set in u. A change that changes nothing
// writes nothing and records no event.
func (db *DB) UpdateProject(ctx context.Context, slug string, u board.ProjectPatch) (board.Project, error) {
	var p board.Project
	err := db.write(ctx, func(tx *tx) error {
		old, err := getProject(ctx, tx, slug)
		if err != nil {
			return err
		}
		p, _, err = tx.updateProject(old, u, board.Human)
		return err
	})
	if err != nil {
		return board.Project{}, wrap(err, "update project %s", slug)
	}
	return p, nil
}

// updateProject applies u to p, saves it and records the event by actor,
// reporting the fields that changed; a patch that changes nothing writes
// nothing.
func (tx *tx) updateProject(p board.Project, u board.ProjectPatch, actor board.Actor) (board.Project, []string, error) {
	changed, err := u.Apply(&p)
	if err != nil || len(changed) == 0 {
		return p, nil, err
	}
	p.UpdatedAt = tx.now
	a := p.Agent
	_, err = tx.exec(`UPDATE projects SET name = ?, repo = ?, default_branch = ?, model = ?, budget_usd = ?,
		verify = ?, updated_at = ?, ticket_tokens = ?, run_budget_usd = ?, run_tokens = ?,
		daily_budget_usd = ?, daily_tokens = ?, take_backlog = ?, permission_mode = ?,
		allow_commands = ?, ask_commands = ?, sandbox = ?, network = ?, allow_hosts = ?,
		land = ?, land_style = ?, update_style = ?, engine = ?, thinking = ?, mcp_servers = ?, schedule_tools = ?
		WHERE id = ?`,
		p.Name, p.Repo, p.DefaultBranch, a.Model, a.BudgetUSD, a.Verify, tx.nowMs(),
		a.TicketTokens, a.RunBudgetUSD, a.RunTokens, a.DailyBudgetUSD, a.DailyTokens, a.TakeBacklog,
		string(a.PermissionMode), jsonList{&a.Allow}, jsonList{&a.Ask}, string(a.Sandbox), string(a.Network),
		jsonList{&a.AllowHosts}, string(a.Land), string(a.LandStyle), string(a.UpdateStyle), string(a.Engine),
		string(a.Thinking), jsonList{&a.MCPServers}, a.ScheduleTools, p.ID)
	if err != nil {
		return p, nil, err
	}
	return p, changed, tx.event(board.EventProjectUpdated, p.ID, "", actor, map[string]any{"slug": p.Slug, "fields": changed})
}

// ArchiveProject marks the project inactive. Archiving an archived project
// changes nothing and records no event.
func (db *DB) ArchiveProject(ctx context.Context, slug string) (board.Project, error) {
	p, err := db.setActive(ctx, slug, false, board.EventProjectArchived)
	if err != nil {
		return board.Project{}, wrap(err, "archive project %s", slug)
	}
	return p, nil
}

// RestoreProject makes an archived project active again. Restoring an
// active project changes nothing and records no event.
func (db *DB) RestoreProject(ctx context.Context, slug string) (board.Project, error) {
	p, err := db.setActive(ctx, slug, true, board.EventProjectRestored)
	if err != nil {
		return board.Project{}, wrap(err, "restore project %s", slug)
	}
	return p, nil
}

// setActive sets the project's active flag, recording event when it
// changes.
func (db *DB) setActive(ctx context.Context, slug string, active bool, event board.EventType) (board.Project, error) {
	var p board.Project
	err := db.write(ctx, func(tx *tx) error {
		var err error
		if p, err = getProject(ctx, tx, slug); err != nil || p.Active == active {
			return err
		}
		p.Active, p.UpdatedAt = active, tx.now
		if _, err := tx.exec(`UPDATE projects SET active = ?, updated_at = ? WHERE id = ?`, active, tx.nowMs(), p.ID); err != nil {
			return err
		}
		return tx.event(event, p.ID, "", board.Human, map[string]string{"slug": p.Slug})
	})
	return p, err
}
