package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// DefaultFirings is how many firings Firings returns for a limit of 0.
const DefaultFirings = 50

// scheduleColumns end with the project's ID, which board.Schedule does
// not carry but the events need.
const scheduleColumns = `s.id, p.slug, s.name, s.kind, s.expr, s.timezone, s.anchor, s.title, s.description,
	s.criteria, s.priority, s.start_state, s.pre_check, s.overlap, s.paused, s.next_fire, s.failures,
	s.last_error, COALESCE(t.number, 0), COALESCE(t.state, ''), s.created_by, s.created_at, s.updated_at, s.project_id`

const scheduleFrom = ` FROM schedules s JOIN projects p ON p.id = s.project_id
	LEFT JOIN tickets t ON t.id = s.last_ticket_id`

// scanSchedule reads a row of scheduleColumns: the schedule and its
// project's ID.
func scanSchedule(r scanner) (board.Schedule, string, error) {
	var s board.Schedule
	var projectID, criteria string
	var anchor, created, updated int64
	var next *int64
	err := r.Scan(&s.ID, &s.ProjectSlug, &s.Name, &s.Kind, &s.Expr, &s.TimeZone, &anchor, &s.Title, &s.Description,
		&criteria, &s.Priority, &s.StartState, &s.PreCheck, &s.Overlap, &s.Paused, &next, &s.Failures,
		&s.LastError, &s.LastTicket, &s.LastTicketState, &s.CreatedBy, &created, &updated, &projectID)
	if err != nil {
		return s, "", err
	}
	if s.Criteria, err = decodeCriteria(criteria); err != nil {
		return s, "", fmt.Errorf("schedule %s/%s: criteria: %w", s.ProjectSlug, s.Name, err)
	}
	if anchor != 0 {
		s.Anchor = fromMillis(anchor)
	}
	if next != nil {
		s.NextFire = fromMillis(*next)
	}
	s.CreatedAt, s.UpdatedAt = fromMillis(created), fromMillis(updated)
	return s, projectID, nil
}

// nextFire stores a zero time as NULL: never again.
func nextFire(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

// anchorMs stores a zero anchor as 0.
func anchorMs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// getSchedule reads one schedule by project slug and name, with its
// project's ID.
func getSchedule(ctx context.Context, q querier, slug, name string) (board.Schedule, string, error) {
	s, pid, err := scanSchedule(q.QueryRow(ctx, `SELECT `+scheduleColumns+scheduleFrom+` WHERE p.slug = $1 AND s.name = $2`, slug, name))
	if noRows(err) {
		if _, err := getProject(ctx, q, slug); err != nil {
			return board.Schedule{}, "", err
		}
		return board.Schedule{}, "", board.Errorf(board.ENOTFOUND, "no schedule %q in project %s; 'bonsai schedule list %s' shows them", name, slug, slug)
	}
	if err != nil {
		return board.Schedule{}, "", fmt.Errorf("read schedule %s/%s: %w", slug, name, err)
	}
	return s, pid, nil
}

// normalSchedule fills in the defaults of a new schedule and keeps its
// times to the millisecond, as they are stored.
func normalSchedule(s board.Schedule) board.Schedule {
	if s.StartState == "" {
		s.StartState = board.Backlog
	}
	if s.Overlap == "" {
		s.Overlap = board.OverlapSkip
	}
	if s.Criteria == nil {
		s.Criteria = []string{}
	}
	if !s.Anchor.IsZero() {
		s.Anchor = fromMillis(s.Anchor.UnixMilli())
	}
	if !s.NextFire.IsZero() {
		s.NextFire = fromMillis(s.NextFire.UnixMilli())
	}
	return s
}

// CreateSchedule validates s and stores it with an ID.
func (db *DB) CreateSchedule(ctx context.Context, s board.Schedule, actor board.Actor) (board.Schedule, error) {
	if !actor.Valid() {
		return board.Schedule{}, board.Errorf(board.EINVALID, "unknown actor %q", actor)
	}
	s = normalSchedule(s)
	if err := s.Validate(); err != nil {
		return board.Schedule{}, err
	}
	err := db.write(ctx, func(tx *tx) error {
		p, err := getProject(ctx, tx, s.ProjectSlug)
		if err != nil {
			return err
		}
		// Every writer holds the write lock, so nobody takes the name
		// between this check and the insert.
		var exists bool
		if err := tx.queryRow(`SELECT EXISTS (SELECT 1 FROM schedules WHERE project_id = $1 AND name = $2)`, p.ID, s.Name).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return board.Errorf(board.ECONFLICT, "project %s already has a schedule %q; pick another name or edit it with 'bonsai schedule edit %s %s'", p.Slug, s.Name, p.Slug, s.Name)
		}
		s.ID, s.CreatedBy, s.CreatedAt, s.UpdatedAt = db.newID(), actor, tx.now, tx.now
		_, err = tx.exec(`INSERT INTO schedules (id, project_id, name, kind, expr, timezone, anchor, title, description,
			criteria, priority, start_state, pre_check, overlap, paused, next_fire, created_by, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18)`,
			s.ID, p.ID, s.Name, s.Kind, s.Expr, s.TimeZone, anchorMs(s.Anchor), s.Title, s.Description,
			encodeCriteria(s.Criteria), s.Priority, string(s.StartState), s.PreCheck, string(s.Overlap), s.Paused,
			nextFire(s.NextFire), string(actor), tx.nowMs())
		if err != nil {
			return err
		}
		return tx.event(board.EventScheduleCreated, p.ID, "", actor, map[string]any{"schedule": s.Name, "kind": s.Kind, "expr": s.Expr})
	})
	if err != nil {
		return board.Schedule{}, wrap(err, "create schedule %s in %s", s.Name, s.ProjectSlug)
	}
	return s, nil
}

// Schedule returns one schedule.
func (db *DB) Schedule(ctx context.Context, projectSlug, name string) (board.Schedule, error) {
	s, _, err := getSchedule(ctx, db.pool, projectSlug, name)
	return s, err
}

// ScheduleList lists schedules by project slug then name.
func (db *DB) ScheduleList(ctx context.Context, f store.ScheduleFilter) ([]board.Schedule, error) {
	q, args := `SELECT `+scheduleColumns+scheduleFrom, []any{}
	if f.ProjectSlug != "" {
		if _, err := getProject(ctx, db.pool, f.ProjectSlug); err != nil {
			return nil, err
		}
		q += ` WHERE p.slug = $1`
		args = append(args, f.ProjectSlug)
	}
	return db.schedules(ctx, q+` ORDER BY p.slug, s.name`, args...)
}

// schedules runs a query of scheduleColumns.
func (db *DB) schedules(ctx context.Context, q string, args ...any) ([]board.Schedule, error) {
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list schedules: %w", err)
	}
	defer rows.Close()
	out := []board.Schedule{}
	for rows.Next() {
		s, _, err := scanSchedule(rows)
		if err != nil {
			return nil, fmt.Errorf("list schedules: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list schedules: %w", err)
	}
	return out, nil
}

// UpdateSchedule changes the fields set in u.
func (db *DB) UpdateSchedule(ctx context.Context, projectSlug, name string, u board.SchedulePatch, actor board.Actor) (board.Schedule, error) {
	var s board.Schedule
	err := db.write(ctx, func(tx *tx) error {
		old, pid, err := getSchedule(ctx, tx, projectSlug, name)
		if err != nil {
			return err
		}
		var changed []string
		s, changed = u.Apply(old)
		s = normalSchedule(s)
		if err := s.Validate(); err != nil {
			return err
		}
		if len(changed) == 0 {
			return nil
		}
		s.Failures, s.LastError, s.UpdatedAt = 0, "", tx.now
		_, err = tx.exec(`UPDATE schedules SET kind = $1, expr = $2, timezone = $3, anchor = $4, title = $5, description = $6,
			criteria = $7, priority = $8, start_state = $9, pre_check = $10, overlap = $11, paused = $12, next_fire = $13,
			failures = 0, last_error = '', updated_at = $14 WHERE id = $15`,
			s.Kind, s.Expr, s.TimeZone, anchorMs(s.Anchor), s.Title, s.Description, encodeCriteria(s.Criteria), s.Priority,
			string(s.StartState), s.PreCheck, string(s.Overlap), s.Paused, nextFire(s.NextFire), tx.nowMs(), s.ID)
		if err != nil {
			return err
		}
		return tx.event(board.EventScheduleUpdated, pid, "", actor, map[string]any{"schedule": s.Name, "changed": changed})
	})
	if err != nil {
		return board.Schedule{}, wrap(err, "update schedule %s/%s", projectSlug, name)
	}
	return s, nil
}

// DeleteSchedule removes a schedule and its firings.
func (db *DB) DeleteSchedule(ctx context.Context, projectSlug, name string, actor board.Actor) error {
	return wrap(db.write(ctx, func(tx *tx) error {
		s, pid, err := getSchedule(ctx, tx, projectSlug, name)
		if err != nil {
			return err
		}
		if _, err := tx.exec(`DELETE FROM schedules WHERE id = $1`, s.ID); err != nil {
			return err
		}
		return tx.event(board.EventScheduleDeleted, pid, "", actor, map[string]any{"schedule": s.Name})
	}), "delete schedule %s/%s", projectSlug, name)
}

// dueQuery reads the due schedules through the partial index
// schedules_due: an idle beat reads an empty range of it.
const dueQuery = `SELECT ` + scheduleColumns + scheduleFrom + `
	WHERE NOT s.paused AND s.next_fire IS NOT NULL AND s.next_fire <= $1 AND p.active
	ORDER BY s.next_fire, s.id`

// DueSchedules lists the due schedules of active projects.
func (db *DB) DueSchedules(ctx context.Context, now time.Time) ([]board.Schedule, error) {
	return db.schedules(ctx, dueQuery, now.UnixMilli())
}
