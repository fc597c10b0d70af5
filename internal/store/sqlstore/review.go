package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Review returns the commits recorded for review of a ticket's work; a
// zero Review when none were.
func (db *DB) Review(ctx context.Context, ref board.Ref) (board.Review, error) {
	t, err := getTicket(ctx, db, ref)
	if err != nil {
		return board.Review{}, err
	}
	r := board.Review{Ref: ref}
	var at int64
	err = db.queryRowContext(ctx, `SELECT base, tip, recorded_at FROM reviews WHERE ticket_id = ?`, t.ID).Scan(&r.Base, &r.Tip, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return board.Review{Ref: ref}, nil
	}
	if err != nil {
		return board.Review{}, fmt.Errorf("read the review of %s: %w", ref, err)
	}
	r.RecordedAt = fromMillis(at)
	return r, nil
}

// SetReview records r as its ticket's review, replacing the one before.
func (db *DB) SetReview(ctx context.Context, r board.Review) (board.Review, error) {
	if err := r.Validate(); err != nil {
		return board.Review{}, err
	}
	err := db.writeTicket(ctx, r.Ref, func(tx *tx, t board.Ticket) error {
		r.RecordedAt = tx.now
		_, err := tx.exec(`INSERT INTO reviews (ticket_id, project_id, base, tip, recorded_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (ticket_id) DO UPDATE SET base = excluded.base, tip = excluded.tip, recorded_at = excluded.recorded_at`,
			t.ID, t.ProjectID, r.Base, r.Tip, tx.nowMs())
		return err
	})
	return result(r, wrap(err, "record the review of %s", r.Ref))
}
