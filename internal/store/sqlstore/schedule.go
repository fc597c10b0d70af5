package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// DefaultFirings is how many firings Firings returns for a limit of 0.
const DefaultFirings = 50

const scheduleColumns = `s.id, p.slug, s.name, s.kind, s.expr, s.timezone, s.anchor, s.title, s.description,
	s.criteria, s.priority, s.start_state, s.pre_check, s.overlap, s.paused, s.next_fire, s.failures,
	s.last_error, COALESCE(t.number, 0), COALESCE(t.state, ''), s.created_by, s.created_at, s.updated_at`

const scheduleFrom = ` FROM schedules s JOIN projects p ON p.id = s.project_id
	LEFT JOIN tickets t ON t.id = s.last_ticket_id`

func scanSchedule(r scanner) (board.Schedule, error) {
	var s board.Schedule
	err := r.Scan(&s.ID, &s.ProjectSlug, &s.Name, &s.Kind, &s.Expr, &s.TimeZone, msOrZero{&s.Anchor}, &s.Title, &s.Description,
		jsonList{&s.Criteria}, &s.Priority, &s.StartState, &s.PreCheck, &s.Overlap, &s.Paused, ms{&s.NextFire}, &s.Failures,
		&s.LastError, &s.LastTicket, &s.LastTicketState, &s.CreatedBy, ms{&s.CreatedAt}, ms{&s.UpdatedAt})
	if s.Criteria == nil {
		s.Criteria = []string{}
	}
	return s, err
}

// getSchedule reads one schedule by project slug and name.
func getSchedule(ctx context.Context, q queryer, slug, name string) (board.Schedule, error) {
	s, err := one(ctx, q, scanSchedule, func() error {
		if _, err := getProject(ctx, q, slug); err != nil {
			return err
		}
		return board.Errorf(board.ENOTFOUND, "no schedule %q in project %s; 'bonsai schedule list %s' shows them", name, slug, slug)
	}, `SELECT `+scheduleColumns+scheduleFrom+` WHERE p.slug = ? AND s.name = ?`, slug, name)
	return result(s, wrap(err, "read schedule %s/%s", slug, name))
}

// CreateSchedule validates s and stores it with an ID.
func (db *DB) CreateSchedule(ctx context.Context, s board.Schedule, actor board.Actor) (board.Schedule, error) {
	if err := checkActor(actor); err != nil {
		return board.Schedule{}, err
	}
	s = s.Normal()
	if err := s.Validate(); err != nil {
		return board.Schedule{}, err
	}
	out, err := writing(ctx, db, true, func(tx *tx) (board.Schedule, error) {
		p, err := getProject(ctx, tx, s.ProjectSlug)
		if err == nil {
			err = tx.expect(false, board.Errorf(board.ECONFLICT, "project %s already has a schedule %q; pick another name or edit it with 'bonsai schedule edit %s %s'", p.Slug, s.Name, p.Slug, s.Name),
				`SELECT 1 FROM schedules WHERE project_id = ? AND name = ?`, p.ID, s.Name)
		}
		if err != nil {
			return s, err
		}
		s.ID, s.CreatedBy, s.CreatedAt, s.UpdatedAt = db.newID(), actor, tx.now, tx.now
		_, err = tx.exec(`INSERT INTO schedules (id, project_id, name, kind, expr, timezone, anchor, title, description,
			criteria, priority, start_state, pre_check, overlap, paused, next_fire, created_by, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.ID, p.ID, s.Name, s.Kind, s.Expr, s.TimeZone, zeroOr0(s.Anchor), s.Title, s.Description,
			jsonList{&s.Criteria}, s.Priority, string(s.StartState), s.PreCheck, string(s.Overlap), s.Paused,
			zeroOrNull(s.NextFire), string(actor), tx.nowMs(), tx.nowMs())
		if err != nil {
			return s, err
		}
		return s, tx.event(board.EventScheduleCreated, p.ID, "", actor, map[string]any{"schedule": s.Name, "kind": s.Kind, "expr": s.Expr})
	})
	return out, wrap(err, "create schedule %s in %s", s.Name, s.ProjectSlug)
}

// Schedule returns one schedule.
func (db *DB) Schedule(ctx context.Context, projectSlug, name string) (board.Schedule, error) {
	return getSchedule(ctx, db, projectSlug, name)
}

// ScheduleList lists schedules by project slug then name.
func (db *DB) ScheduleList(ctx context.Context, f store.ScheduleFilter) ([]board.Schedule, error) {
	q, args := `SELECT `+scheduleColumns+scheduleFrom, []any{}
	if f.ProjectSlug != "" {
		if _, err := getProject(ctx, db, f.ProjectSlug); err != nil {
			return nil, err
		}
		q += ` WHERE p.slug = ?`
		args = append(args, f.ProjectSlug)
	}
	return db.schedules(ctx, q+` ORDER BY p.slug, s.name`, args...)
}

// schedules runs a query of scheduleColumns.
func (db *DB) schedules(ctx context.Context, q string, args ...any) ([]board.Schedule, error) {
	out, err := list(ctx, db, scanSchedule, q, args...)
	return result(out, wrap(err, "list schedules"))
}

// UpdateSchedule changes the fields set in u.
func (db *DB) UpdateSchedule(ctx context.Context, projectSlug, name string, u board.SchedulePatch, actor board.Actor) (board.Schedule, error) {
	s, err := writing(ctx, db, true, func(tx *tx) (board.Schedule, error) {
		s, err := getSchedule(ctx, tx, projectSlug, name)
		if err != nil {
			return s, err
		}
		s, changed := u.Apply(s)
		s = s.Normal()
		if err := s.Validate(); err != nil || len(changed) == 0 {
			return s, err
		}
		s.Failures, s.LastError, s.UpdatedAt = 0, "", tx.now
		_, err = tx.exec(`UPDATE schedules SET kind = ?, expr = ?, timezone = ?, anchor = ?, title = ?, description = ?,
			criteria = ?, priority = ?, start_state = ?, pre_check = ?, overlap = ?, paused = ?, next_fire = ?,
			failures = 0, last_error = '', updated_at = ? WHERE id = ?`,
			s.Kind, s.Expr, s.TimeZone, zeroOr0(s.Anchor), s.Title, s.Description, jsonList{&s.Criteria}, s.Priority,
			string(s.StartState), s.PreCheck, string(s.Overlap), s.Paused, zeroOrNull(s.NextFire), tx.nowMs(), s.ID)
		if err != nil {
			return s, err
		}
		return s, tx.event(board.EventScheduleUpdated, projectIDOf(ctx, tx, projectSlug), "", actor,
			map[string]any{"schedule": s.Name, "changed": changed})
	})
	return s, wrap(err, "update schedule %s/%s", projectSlug, name)
}

// projectIDOf returns the ID of a project known to exist.
func projectIDOf(ctx context.Context, q queryer, slug string) string {
	var id string
	q.queryRowContext(ctx, `SELECT id FROM projects WHERE slug = ?`, slug).Scan(&id)
	return id
}

// DeleteSchedule removes a schedule and its firings.
func (db *DB) DeleteSchedule(ctx context.Context, projectSlug, name string, actor board.Actor) error {
	return wrap(db.write(ctx, func(tx *tx) error {
		s, err := getSchedule(ctx, tx, projectSlug, name)
		if err != nil {
			return err
		}
		if _, err := tx.exec(`DELETE FROM schedules WHERE id = ?`, s.ID); err != nil {
			return err
		}
		return tx.event(board.EventScheduleDeleted, projectIDOf(ctx, tx, projectSlug), "", actor, map[string]any{"schedule": s.Name})
	}), "delete schedule %s/%s", projectSlug, name)
}

// DueQuery is the query of DueSchedules: Dialect.DueWhere reads the due
// schedules through the engine's partial index, so an idle beat reads an
// empty range of it. It is exported for the engines' query-plan tests.
func (db *DB) DueQuery() string { return db.dueQuery }

// DueSchedules lists the due schedules of active projects.
func (db *DB) DueSchedules(ctx context.Context, now time.Time) ([]board.Schedule, error) {
	return db.schedules(ctx, db.dueQuery, now.UnixMilli())
}

// FireSchedule records one firing.
func (db *DB) FireSchedule(ctx context.Context, f board.Fire) (board.Firing, error) {
	f, err := f.Check()
	if err != nil {
		return board.Firing{}, err
	}
	return db.fire(ctx, f, func(tx *tx, s board.Schedule, fr *board.Firing) error {
		ticketID := ""
		if f.Outcome == board.FiringCreated {
			f.Ticket.ProjectSlug = s.ProjectSlug
			if err := db.insertTicket(tx, f.Ticket, board.System); err != nil {
				return err
			}
			ticketID, fr.Ticket = f.Ticket.ID, f.Ticket.Number
		}
		_, err := tx.exec(`UPDATE schedules SET next_fire = ?, failures = 0, last_error = '',
			last_ticket_id = CASE WHEN ? = '' THEN last_ticket_id ELSE ? END WHERE id = ?`,
			zeroOrNull(f.Next), ticketID, ticketID, s.ID)
		if err != nil {
			return err
		}
		if err := insertFiring(tx, fr, ticketID); err != nil {
			return err
		}
		data := map[string]any{"schedule": s.Name, "outcome": fr.Outcome}
		if fr.Ticket != 0 {
			data["ticket"] = board.Ref{Project: s.ProjectSlug, Number: fr.Ticket}.String()
		}
		return tx.event(board.EventScheduleFired, projectIDOf(ctx, tx, s.ProjectSlug), ticketID, board.System, data)
	})
}

// FailSchedule records a failed pre-check.
func (db *DB) FailSchedule(ctx context.Context, f board.Fire) (board.Firing, error) {
	f.Outcome = board.FiringFailed
	return db.fire(ctx, f, func(tx *tx, s board.Schedule, fr *board.Firing) error {
		_, err := tx.exec(`UPDATE schedules SET next_fire = ?, failures = failures + 1, last_error = ? WHERE id = ?`,
			zeroOrNull(f.Next), f.Detail, s.ID)
		if err != nil {
			return err
		}
		if err := insertFiring(tx, fr, ""); err != nil {
			return err
		}
		return tx.event(board.EventScheduleFailed, projectIDOf(ctx, tx, s.ProjectSlug), "", board.System,
			map[string]any{"schedule": s.Name, "failures": s.Failures + 1,
				"error": fmt.Sprintf("schedule %s/%s could not fire: %s", s.ProjectSlug, s.Name, f.Detail)})
	})
}

// fire runs one firing's transaction: the compare-and-set on next_fire
// first, then write.
func (db *DB) fire(ctx context.Context, f board.Fire, write func(tx *tx, s board.Schedule, fr *board.Firing) error) (board.Firing, error) {
	fr := board.Firing{ScheduleID: f.ScheduleID, DueAt: fromMillis(f.DueAt.UnixMilli()), Outcome: f.Outcome, Detail: f.Detail}
	fr, err := writing(ctx, db, true, func(tx *tx) (board.Firing, error) {
		s, err := one(ctx, tx, scanSchedule, func() error { return board.Errorf(board.ENOTFOUND, "schedule with id %q not found", f.ScheduleID) },
			`SELECT `+scheduleColumns+scheduleFrom+` WHERE s.id = ?`, f.ScheduleID)
		if err != nil {
			return fr, err
		}
		if err := s.CheckDue(f.DueAt); err != nil {
			return fr, err
		}
		fr.FiredAt = tx.now
		err = write(tx, s, &fr)
		return fr, err
	})
	return fr, wrap(err, "fire schedule %s", f.ScheduleID)
}

// insertFiring stores fr, filling in its ID.
func insertFiring(tx *tx, fr *board.Firing, ticketID string) error {
	return tx.queryRow(`INSERT INTO schedule_firings (schedule_id, due_at, fired_at, outcome, ticket_id, detail)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		fr.ScheduleID, fr.DueAt.UnixMilli(), tx.nowMs(), string(fr.Outcome), ticketID, fr.Detail).Scan(&fr.ID)
}

// Firings lists a schedule's firings, newest first.
func (db *DB) Firings(ctx context.Context, projectSlug, name string, limit int) ([]board.Firing, error) {
	s, err := getSchedule(ctx, db, projectSlug, name)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = DefaultFirings
	}
	out, err := list(ctx, db, scanFiring, `SELECT f.id, f.schedule_id, f.due_at, f.fired_at, f.outcome, COALESCE(t.number, 0), f.detail
		FROM schedule_firings f LEFT JOIN tickets t ON t.id = f.ticket_id
		WHERE f.schedule_id = ? ORDER BY f.id DESC LIMIT ?`, s.ID, limit)
	return result(out, wrap(err, "list firings"))
}

func scanFiring(s scanner) (board.Firing, error) {
	var fr board.Firing
	err := s.Scan(&fr.ID, &fr.ScheduleID, ms{&fr.DueAt}, ms{&fr.FiredAt}, &fr.Outcome, &fr.Ticket, &fr.Detail)
	return fr, err
}
