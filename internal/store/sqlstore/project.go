package sqlstore

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// projectColumns are read by scanProject. The agent settings are one
// JSON object (board.EncodeSettings); take_backlog is a copy of one of
// them that the pick query reads.
const projectColumns = `id, slug, name, repo, default_branch, active, settings, created_at, updated_at`

func scanProject(s scanner) (board.Project, error) {
	var p board.Project
	err := s.Scan(&p.ID, &p.Slug, &p.Name, &p.Repo, &p.DefaultBranch, &p.Active, settingsJSON{&p.Agent}, ms{&p.CreatedAt}, ms{&p.UpdatedAt})
	return p, err
}

// projectNotFound is the error for an unknown slug.
func projectNotFound(slug string) error {
	return board.Errorf(board.ENOTFOUND, "project %q not found", slug)
}

// getProject reads one project by slug.
func getProject(ctx context.Context, q queryer, slug string) (board.Project, error) {
	p, err := one(ctx, q, scanProject, func() error { return projectNotFound(slug) },
		`SELECT `+projectColumns+` FROM projects WHERE slug = ?`, slug)
	return result(p, wrap(err, "read project %s", slug))
}

// CreateProject validates p, assigns its ID and timestamps and stores it as
// an active project.
func (db *DB) CreateProject(ctx context.Context, p board.Project) (board.Project, error) {
	if err := p.ValidateNew(); err != nil {
		return board.Project{}, err
	}
	out, err := writing(ctx, db, true, func(tx *tx) (board.Project, error) {
		err := tx.expect(false, board.Errorf(board.ECONFLICT, "project %q already exists", p.Slug),
			`SELECT 1 FROM projects WHERE slug = ?`, p.Slug)
		if err != nil {
			return p, err
		}
		p.ID, p.Active = db.newID(), true
		p.CreatedAt, p.UpdatedAt = tx.now, tx.now
		_, err = tx.exec(`INSERT INTO projects (`+projectColumns+`, take_backlog) VALUES (?, ?, ?, ?, ?, true, ?, ?, ?, ?)`,
			p.ID, p.Slug, p.Name, p.Repo, p.DefaultBranch, settingsJSON{&p.Agent}, tx.nowMs(), tx.nowMs(), p.Agent.TakeBacklog)
		if err != nil {
			return p, err
		}
		return p, tx.event(board.EventProjectCreated, p.ID, "", board.Human, map[string]string{"slug": p.Slug, "name": p.Name})
	})
	return out, wrap(err, "create project %s", p.Slug)
}

// Project returns the project with the given slug, archived or not.
func (db *DB) Project(ctx context.Context, slug string) (board.Project, error) {
	return getProject(ctx, db, slug)
}

// Projects lists projects by slug; archived ones only when asked.
func (db *DB) Projects(ctx context.Context, f store.ProjectFilter) ([]board.Project, error) {
	q := `SELECT ` + projectColumns + ` FROM projects WHERE active OR ? ORDER BY slug`
	ps, err := list(ctx, db, scanProject, q, f.IncludeArchived)
	return result(ps, wrap(err, "list projects"))
}

// UpdateProject changes the fields set in u. A change that changes nothing
// writes nothing and records no event.
func (db *DB) UpdateProject(ctx context.Context, slug string, u board.ProjectPatch) (board.Project, error) {
	p, err := writing(ctx, db, true, func(tx *tx) (board.Project, error) {
		p, err := getProject(ctx, tx, slug)
		if err == nil {
			p, _, err = tx.updateProject(p, u, board.Human)
		}
		return p, err
	})
	return p, wrap(err, "update project %s", slug)
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
	_, err = tx.exec(`UPDATE projects SET name = ?, repo = ?, default_branch = ?, settings = ?, take_backlog = ?,
		updated_at = ? WHERE id = ?`,
		p.Name, p.Repo, p.DefaultBranch, settingsJSON{&p.Agent}, p.Agent.TakeBacklog, tx.nowMs(), p.ID)
	if err != nil {
		return p, nil, err
	}
	return p, changed, tx.event(board.EventProjectUpdated, p.ID, "", actor, map[string]any{"slug": p.Slug, "fields": changed})
}

// ArchiveProject marks the project inactive. Archiving an archived project
// changes nothing and records no event.
func (db *DB) ArchiveProject(ctx context.Context, slug string) (board.Project, error) {
	p, err := db.setActive(ctx, slug, false, board.EventProjectArchived)
	return result(p, wrap(err, "archive project %s", slug))
}

// RestoreProject makes an archived project active again. Restoring an
// active project changes nothing and records no event.
func (db *DB) RestoreProject(ctx context.Context, slug string) (board.Project, error) {
	p, err := db.setActive(ctx, slug, true, board.EventProjectRestored)
	return result(p, wrap(err, "restore project %s", slug))
}

// setActive sets the project's active flag, recording event when it
// changes.
func (db *DB) setActive(ctx context.Context, slug string, active bool, event board.EventType) (board.Project, error) {
	return writing(ctx, db, true, func(tx *tx) (board.Project, error) {
		p, err := getProject(ctx, tx, slug)
		if err != nil || p.Active == active {
			return p, err
		}
		p.Active, p.UpdatedAt = active, tx.now
		if _, err := tx.exec(`UPDATE projects SET active = ?, updated_at = ? WHERE id = ?`, active, tx.nowMs(), p.ID); err != nil {
			return p, err
		}
		return p, tx.event(event, p.ID, "", board.Human, map[string]string{"slug": p.Slug})
	})
}
