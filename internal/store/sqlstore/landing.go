package sqlstore

import (
	"context"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

const landingColumns = `p.slug, t.number, l.mode, l.branch, l.forge, l.pr_number, l.pr_url, l.pr_state, l.checks,
	l.head_sha, l.etag, l.review_cursor, l.landed_commit, l.landed_at, l.error, l.updated_at`

const landingFrom = ` FROM landings l JOIN tickets t ON t.id = l.ticket_id JOIN projects p ON p.id = l.project_id`

func scanLanding(s scanner) (board.Landing, error) {
	var l board.Landing
	err := s.Scan(&l.Ref.Project, &l.Ref.Number, &l.Mode, &l.Branch, &l.Forge, &l.PRNumber, &l.PRURL, &l.PRState,
		&l.Checks, &l.HeadSHA, &l.ETag, &l.ReviewCursor, &l.Commit, ms{&l.LandedAt}, &l.Error, ms{&l.UpdatedAt})
	return l, err
}

// getLanding reads the landing of a ticket.
func getLanding(ctx context.Context, q queryer, ref board.Ref) (board.Landing, error) {
	l, err := one(ctx, q, scanLanding, func() error { return board.Errorf(board.ENOTFOUND, "%s has no landing yet", ref) },
		`SELECT `+landingColumns+landingFrom+` WHERE p.slug = ? AND t.number = ?`, ref.Project, ref.Number)
	return result(l, wrap(err, "read landing of %s", ref))
}

// Landing returns the landing of a ticket; none is ENOTFOUND, and so is
// an unknown ticket.
func (db *DB) Landing(ctx context.Context, ref board.Ref) (board.Landing, error) {
	l, err := getLanding(ctx, db, ref)
	if board.ErrorCode(err) == board.ENOTFOUND {
		if _, terr := getTicket(ctx, db, ref); terr != nil {
			return l, terr
		}
	}
	return l, err
}

// SaveLanding stores l as its ticket's landing, with an event when it
// changed.
func (db *DB) SaveLanding(ctx context.Context, l board.Landing) (board.Landing, error) {
	if err := l.Validate(); err != nil {
		return board.Landing{}, err
	}
	if !l.LandedAt.IsZero() {
		l.LandedAt = l.LandedAt.UTC().Truncate(time.Millisecond)
	}
	return onTicket(ctx, db, l.Ref, "save landing of", func(tx *tx, t board.Ticket) (board.Landing, error) {
		old, err := getLanding(ctx, tx, l.Ref)
		switch {
		case err == nil && l.Unchanged(old):
			return old, nil
		case err != nil && board.ErrorCode(err) != board.ENOTFOUND:
			return l, err
		}
		l.UpdatedAt = tx.now
		_, err = tx.exec(`INSERT INTO landings (ticket_id, project_id, mode, branch, forge, pr_number, pr_url, pr_state,
			checks, head_sha, etag, review_cursor, landed_commit, landed_at, error, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (ticket_id) DO UPDATE SET mode = excluded.mode, branch = excluded.branch, forge = excluded.forge,
			pr_number = excluded.pr_number, pr_url = excluded.pr_url, pr_state = excluded.pr_state, checks = excluded.checks,
			head_sha = excluded.head_sha, etag = excluded.etag, review_cursor = excluded.review_cursor,
			landed_commit = excluded.landed_commit, landed_at = excluded.landed_at, error = excluded.error,
			updated_at = excluded.updated_at`,
			t.ID, t.ProjectID, string(l.Mode), l.Branch, l.Forge, l.PRNumber, l.PRURL, string(l.PRState),
			string(l.Checks), l.HeadSHA, l.ETag, l.ReviewCursor, l.Commit, zeroOrNull(l.LandedAt), l.Error, tx.nowMs())
		if err != nil {
			return l, err
		}
		return l, tx.event(board.EventLandingUpdated, t.ProjectID, t.ID, board.System, l.EventData())
	})
}

// Landings lists landings by project slug and ticket number.
func (db *DB) Landings(ctx context.Context, f store.LandingFilter) ([]board.Landing, error) {
	var where []string
	var args []any
	if f.ProjectSlug != "" {
		if _, err := getProject(ctx, db, f.ProjectSlug); err != nil {
			return nil, err
		}
		where, args = append(where, "p.slug = ?"), append(args, f.ProjectSlug)
	}
	if f.OpenPRs {
		where = append(where, "l.pr_state = 'open'")
	}
	q := `SELECT ` + landingColumns + landingFrom
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	ls, err := list(ctx, db, scanLanding, q+` ORDER BY p.slug, t.number`, args...)
	return result(ls, wrap(err, "list landings"))
}

// Review returns the commits recorded for review of a ticket's work; a
// zero Review when none were.
func (db *DB) Review(ctx context.Context, ref board.Ref) (board.Review, error) {
	t, err := getTicket(ctx, db, ref)
	if err != nil {
		return board.Review{}, err
	}
	r := board.Review{Ref: ref}
	err = db.queryRowContext(ctx, `SELECT base, tip, recorded_at FROM reviews WHERE ticket_id = ?`, t.ID).Scan(&r.Base, &r.Tip, ms{&r.RecordedAt})
	return result(r, wrap(absent(err), "read the review of %s", ref))
}

// SetReview records r as its ticket's review, replacing the one before.
func (db *DB) SetReview(ctx context.Context, r board.Review) (board.Review, error) {
	if err := r.Validate(); err != nil {
		return board.Review{}, err
	}
	return onTicket(ctx, db, r.Ref, "record the review of", func(tx *tx, t board.Ticket) (board.Review, error) {
		r.RecordedAt = tx.now
		_, err := tx.exec(`INSERT INTO reviews (ticket_id, project_id, base, tip, recorded_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (ticket_id) DO UPDATE SET base = excluded.base, tip = excluded.tip, recorded_at = excluded.recorded_at`,
			t.ID, t.ProjectID, r.Base, r.Tip, tx.nowMs())
		return r, err
	})
}
