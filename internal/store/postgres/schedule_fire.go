package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// FireSchedule records one firing.
func (db *DB) FireSchedule(ctx context.Context, f board.Fire) (board.Firing, error) {
	var criteria string
	if f.Outcome == board.FiringCreated {
		if f.Ticket == nil {
			return board.Firing{}, board.Errorf(board.EINVALID, "a firing that creates a ticket needs the ticket")
		}
		t, err := board.NewTicket(*f.Ticket)
		if err != nil {
			return board.Firing{}, err
		}
		f.Ticket = &t
		criteria = encodeCriteria(t.Criteria)
	}
	return db.fire(ctx, f, func(tx *tx, s board.Schedule, pid string, fr *board.Firing) error {
		ticketID := ""
		if f.Outcome == board.FiringCreated {
			f.Ticket.ProjectSlug = s.ProjectSlug
			if err := db.insertTicket(tx, f.Ticket, criteria, board.System); err != nil {
				return err
			}
			ticketID, fr.Ticket = f.Ticket.ID, f.Ticket.Number
		}
		_, err := tx.exec(`UPDATE schedules SET next_fire = $1, failures = 0, last_error = '',
			last_ticket_id = CASE WHEN $2::text = '' THEN last_ticket_id ELSE $2::text END WHERE id = $3`,
			nextFire(f.Next), ticketID, s.ID)
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
		return tx.event(board.EventScheduleFired, pid, ticketID, board.System, data)
	})
}

// FailSchedule records a failed pre-check.
func (db *DB) FailSchedule(ctx context.Context, f board.Fire) (board.Firing, error) {
	f.Outcome = board.FiringFailed
	return db.fire(ctx, f, func(tx *tx, s board.Schedule, pid string, fr *board.Firing) error {
		_, err := tx.exec(`UPDATE schedules SET next_fire = $1, failures = failures + 1, last_error = $2 WHERE id = $3`,
			nextFire(f.Next), f.Detail, s.ID)
		if err != nil {
			return err
		}
		if err := insertFiring(tx, fr, ""); err != nil {
			return err
		}
		return tx.event(board.EventScheduleFailed, pid, "", board.System,
			map[string]any{"schedule": s.Name, "failures": s.Failures + 1,
				"error": fmt.Sprintf("schedule %s/%s could not fire: %s", s.ProjectSlug, s.Name, f.Detail)})
	})
}

// fire runs one firing's transaction: the compare-and-set on next_fire
// first, then write. The transaction holds the write lock, and the row
// lock (FOR UPDATE) would keep a second beat out even without it: the
// second reads the moved next_fire once the first commits, and refuses.
func (db *DB) fire(ctx context.Context, f board.Fire, write func(tx *tx, s board.Schedule, projectID string, fr *board.Firing) error) (board.Firing, error) {
	fr := board.Firing{ScheduleID: f.ScheduleID, DueAt: fromMillis(f.DueAt.UnixMilli()), Outcome: f.Outcome, Detail: f.Detail}
	err := db.write(ctx, func(tx *tx) error {
		s, pid, err := scanSchedule(tx.queryRow(`SELECT `+scheduleColumns+scheduleFrom+` WHERE s.id = $1 FOR UPDATE OF s`, f.ScheduleID))
		if noRows(err) {
			return board.Errorf(board.ENOTFOUND, "schedule with id %q not found", f.ScheduleID)
		}
		if err != nil {
			return err
		}
		if s.Paused || s.NextFire.IsZero() || s.NextFire.UnixMilli() != f.DueAt.UnixMilli() {
			return board.Errorf(board.ECONFLICT, "schedule %s/%s is no longer due at %s: another beat fired it, or it was paused or changed",
				s.ProjectSlug, s.Name, f.DueAt.UTC().Format(time.RFC3339))
		}
		fr.FiredAt = tx.now
		return write(tx, s, pid, &fr)
	})
	if err != nil {
		return board.Firing{}, wrap(err, "fire schedule %s", f.ScheduleID)
	}
	return fr, nil
}

// insertFiring stores fr, filling in its ID.
func insertFiring(tx *tx, fr *board.Firing, ticketID string) error {
	return tx.queryRow(`INSERT INTO schedule_firings (schedule_id, due_at, fired_at, outcome, ticket_id, detail)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		fr.ScheduleID, fr.DueAt.UnixMilli(), tx.nowMs(), string(fr.Outcome), ticketID, fr.Detail).Scan(&fr.ID)
}

// Firings lists a schedule's firings, newest first.
func (db *DB) Firings(ctx context.Context, projectSlug, name string, limit int) ([]board.Firing, error) {
	s, _, err := getSchedule(ctx, db.pool, projectSlug, name)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = DefaultFirings
	}
	rows, err := db.pool.Query(ctx, `SELECT f.id, f.schedule_id, f.due_at, f.fired_at, f.outcome, COALESCE(t.number, 0), f.detail
		FROM schedule_firings f LEFT JOIN tickets t ON t.id = f.ticket_id
		WHERE f.schedule_id = $1 ORDER BY f.id DESC LIMIT $2`, s.ID, limit)
	if err != nil {
		return nil, fmt.Errorf("list firings: %w", err)
	}
	defer rows.Close()
	out := []board.Firing{}
	for rows.Next() {
		var fr board.Firing
		var due, fired int64
		if err := rows.Scan(&fr.ID, &fr.ScheduleID, &due, &fired, &fr.Outcome, &fr.Ticket, &fr.Detail); err != nil {
			return nil, fmt.Errorf("list firings: %w", err)
		}
		fr.DueAt, fr.FiredAt = fromMillis(due), fromMillis(fired)
		out = append(out, fr)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list firings: %w", err)
	}
	return out, nil
}
