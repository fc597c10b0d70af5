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
	err = db.queryRowContext(ctx, `SELECT tracker, limited_until, detail, login, token_sum, updated_at FROM tracker_limits
		WHERE project_id = ?`, p.ID).Scan(&kind, &until, &l.Detail, &l.Login, &l.TokenSum, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return l, nil
	}
	if err != nil {
		return board.TrackerLimit{}, fmt.Errorf("read the tracker limit of %s: %w", projectSlug, err)
	}
	l.Tracker, l.UpdatedAt = board.TrackerKind(kind), fromMillis(at)
	if until != 0 {
		l.Until = fromMillis(until)
	}
	return l, nil
}

// SaveTrackerLimit stores or removes a project's tracker rate limit.
func (db *DB) SaveTrackerLimit(ctx context.Context, l board.TrackerLimit) (board.TrackerLimit, error) {
	err := db.inTx(ctx, false, func(tx *tx) error {
		p, err := getProject(ctx, tx, l.ProjectSlug)
		if err != nil {
			return err
		}
		if l.Until.IsZero() && l.Login == "" && l.TokenSum == "" {
			l = board.TrackerLimit{ProjectSlug: p.Slug}
			_, err = tx.exec(`DELETE FROM tracker_limits WHERE project_id = ?`, p.ID)
			return err
		}
		until := int64(0)
		if !l.Until.IsZero() {
			l.Until, until = fromMillis(l.Until.UnixMilli()), l.Until.UnixMilli()
		}
		l.ProjectSlug, l.Detail, l.UpdatedAt = p.Slug, clip(l.Detail, board.MaxDeliveryDetail), tx.now
		_, err = tx.exec(`INSERT INTO tracker_limits (project_id, tracker, limited_until, detail, login, token_sum, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_id) DO UPDATE SET tracker = excluded.tracker,
			limited_until = excluded.limited_until, detail = excluded.detail, login = excluded.login, token_sum = excluded.token_sum,
			updated_at = excluded.updated_at`,
			p.ID, string(l.Tracker), until, l.Detail, l.Login, l.TokenSum, tx.nowMs())
		return err
	})
	if err != nil {
		return board.TrackerLimit{}, wrap(err, "save the tracker limit of %s", l.ProjectSlug)
	}
	return l, nil
}
