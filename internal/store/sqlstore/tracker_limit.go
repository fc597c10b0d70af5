package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TrackerLimit returns a project's tracker rate limit.
func (db *DB) TrackerLimit(ctx context.Context, projectSlug string) (board.TrackerLimit, error) {
	p, err := getProject(ctx, db, projectSlug)
	if err != nil {
		return board.TrackerLimit{}, err
	}
	l := board.TrackerLimit{ProjectSlug: p.Slug}
	var until, at int64
	var kind string
	err = db.queryRowContext(ctx, `SELECT tracker, limited_until, detail, updated_at FROM tracker_limits WHERE project_id = ?`, p.ID).
		Scan(&kind, &until, &l.Detail, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return l, nil
	}
	if err != nil {
		return board.TrackerLimit{}, fmt.Errorf("read the tracker limit of %s: %w", projectSlug, err)
	}
	l.Tracker, l.Until, l.UpdatedAt = board.TrackerKind(kind), fromMillis(until), fromMillis(at)
	return l, nil
}

// SaveTrackerLimit stores or removes a project's tracker rate limit.
func (db *DB) SaveTrackerLimit(ctx context.Context, l board.TrackerLimit) (board.TrackerLimit, error) {
	err := db.inTx(ctx, false, func(tx *tx) error {
		p, err := getProject(ctx, tx, l.ProjectSlug)
		if err != nil {
			return err
		}
		if l.Until.IsZero() {
			l = board.TrackerLimit{ProjectSlug: p.Slug}
			_, err = tx.exec(`DELETE FROM tracker_limits WHERE project_id = ?`, p.ID)
			return err
		}
		l.Until, l.UpdatedAt = fromMillis(l.Until.UnixMilli()), tx.now
		_, err = tx.exec(`INSERT INTO tracker_limits (project_id, tracker, limited_until, detail, updated_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (project_id) DO UPDATE SET tracker = excluded.tracker, limited_until = excluded.limited_until,
			detail = excluded.detail, updated_at = excluded.updated_at`,
			p.ID, string(l.Tracker), l.Until.UnixMilli(), clip(l.Detail, board.MaxDeliveryDetail), tx.nowMs())
		return err
	})
	if err != nil {
		return board.TrackerLimit{}, wrap(err, "save the tracker limit of %s", l.ProjectSlug)
	}
	return l, nil
}
