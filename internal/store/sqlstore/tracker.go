package sqlstore

import (
	"context"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TrackerSync returns where a project's tracker sync stands.
func (db *DB) TrackerSync(ctx context.Context, projectSlug string) (board.TrackerSync, error) {
	p, err := getProject(ctx, db, projectSlug)
	if err != nil {
		return board.TrackerSync{}, err
	}
	s := board.TrackerSync{ProjectSlug: p.Slug}
	err = db.queryRowContext(ctx, `SELECT tracker, query, validator, error, failures, updated_at FROM tracker_syncs WHERE project_id = ?`, p.ID).
		Scan(&s.Tracker, &s.Query, &s.Validator, &s.Error, &s.Failures, ms{&s.UpdatedAt})
	return result(s, wrap(absent(err), "read the tracker sync of %s", projectSlug))
}

// SaveTrackerSync stores a project's tracker sync state.
func (db *DB) SaveTrackerSync(ctx context.Context, s board.TrackerSync) (board.TrackerSync, error) {
	if s.Failures < 0 {
		return board.TrackerSync{}, board.Errorf(board.EINVALID, "tracker sync of %s: %d failures", s.ProjectSlug, s.Failures)
	}
	err := db.write(ctx, func(tx *tx) error {
		p, err := getProject(ctx, tx, s.ProjectSlug)
		if err != nil {
			return err
		}
		s.UpdatedAt = tx.now
		_, err = tx.exec(`INSERT INTO tracker_syncs (project_id, tracker, query, validator, error, failures, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_id) DO UPDATE SET tracker = excluded.tracker, query = excluded.query,
			validator = excluded.validator, error = excluded.error, failures = excluded.failures, updated_at = excluded.updated_at`,
			p.ID, string(s.Tracker), s.Query, s.Validator, s.Error, s.Failures, tx.nowMs())
		return err
	})
	return result(s, wrap(err, "save the tracker sync of %s", s.ProjectSlug))
}

// CreateLinkedTicket creates a ticket for a tracker issue and links them,
// in one transaction.
func (db *DB) CreateLinkedTicket(ctx context.Context, t board.Ticket, l board.IssueLink) (board.Ticket, board.IssueLink, error) {
	t, err := board.NewTicket(t)
	if err != nil {
		return board.Ticket{}, board.IssueLink{}, err
	}
	l.Ref = board.Ref{Project: t.ProjectSlug, Number: 1}
	if err := l.Validate(); err != nil {
		return board.Ticket{}, board.IssueLink{}, err
	}
	err = db.write(ctx, func(tx *tx) error {
		linked := board.Errorf(board.ECONFLICT, "%s issue %s is already linked to a ticket of %s", l.Tracker, l.IssueRef, t.ProjectSlug)
		err := tx.expect(false, linked, `SELECT 1 FROM issue_links l JOIN projects p ON p.id = l.project_id
			WHERE p.slug = ? AND l.tracker = ? AND l.issue_id = ?`, t.ProjectSlug, string(l.Tracker), l.IssueID)
		if err != nil {
			return err
		}
		if err := db.insertTicket(tx, &t, board.System); err != nil {
			return err
		}
		l.Ref, l.Since, l.UpdatedAt = t.Ref(), tx.now, tx.now
		_, err = tx.exec(`INSERT INTO issue_links (ticket_id, project_id, tracker, issue_id, issue_ref, url, comment_cursor, seen,
			mirrored, status, since, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			t.ID, t.ProjectID, string(l.Tracker), l.IssueID, l.IssueRef, l.URL, l.Cursor, l.Seen, string(l.Mirrored), string(l.Status),
			tx.nowMs(), tx.nowMs())
		if err != nil && db.conflict(err) {
			return linked
		}
		return err
	})
	if err != nil {
		return board.Ticket{}, board.IssueLink{}, wrap(err, "create the ticket of %s issue %s", l.Tracker, l.IssueRef)
	}
	return t, l, nil
}

const linkColumns = `p.slug, t.number, l.tracker, l.issue_id, l.issue_ref, l.url, l.comment_cursor, l.seen, l.mirrored, l.status,
	l.since, l.updated_at`

const linkFrom = ` FROM issue_links l JOIN tickets t ON t.id = l.ticket_id JOIN projects p ON p.id = l.project_id`

func scanLink(s scanner) (board.IssueLink, error) {
	var l board.IssueLink
	err := s.Scan(&l.Ref.Project, &l.Ref.Number, &l.Tracker, &l.IssueID, &l.IssueRef, &l.URL, &l.Cursor, &l.Seen, &l.Mirrored,
		&l.Status, ms{&l.Since}, ms{&l.UpdatedAt})
	return l, err
}

// IssueLinks lists a project's issue links by ticket number.
func (db *DB) IssueLinks(ctx context.Context, projectSlug string) ([]board.IssueLink, error) {
	if _, err := getProject(ctx, db, projectSlug); err != nil {
		return nil, err
	}
	out, err := list(ctx, db, scanLink, `SELECT `+linkColumns+linkFrom+` WHERE p.slug = ? ORDER BY t.number`, projectSlug)
	return result(out, wrap(err, "list the issue links of %s", projectSlug))
}

// IssueLink returns a ticket's issue link.
func (db *DB) IssueLink(ctx context.Context, ref board.Ref) (board.IssueLink, error) {
	return getLink(ctx, db, ref)
}

func getLink(ctx context.Context, q queryer, ref board.Ref) (board.IssueLink, error) {
	if _, err := getTicket(ctx, q, ref); err != nil {
		return board.IssueLink{}, err
	}
	l, err := one(ctx, q, scanLink, func() error { return board.Errorf(board.ENOTFOUND, "%s has no tracker issue", ref) },
		`SELECT `+linkColumns+linkFrom+` WHERE p.slug = ? AND t.number = ?`, ref.Project, ref.Number)
	return result(l, wrap(err, "read the issue link of %s", ref))
}

// SaveIssueLink stores what changed of a ticket's issue link.
func (db *DB) SaveIssueLink(ctx context.Context, l board.IssueLink) (board.IssueLink, error) {
	if err := l.Validate(); err != nil {
		return board.IssueLink{}, err
	}
	return onTicket(ctx, db, l.Ref, "save the issue link of", func(tx *tx, t board.Ticket) (board.IssueLink, error) {
		old, err := getLink(ctx, tx, l.Ref)
		if err != nil {
			return l, err
		}
		l.Tracker, l.IssueID, l.Since, l.UpdatedAt = old.Tracker, old.IssueID, old.Since, tx.now
		_, err = tx.exec(`UPDATE issue_links SET issue_ref = ?, url = ?, comment_cursor = ?, seen = ?, mirrored = ?, status = ?,
			updated_at = ? WHERE ticket_id = ?`, l.IssueRef, l.URL, l.Cursor, l.Seen, string(l.Mirrored), string(l.Status), tx.nowMs(), t.ID)
		return l, err
	})
}

// DeliverIssueComment adds a tracker comment to its ticket once.
func (db *DB) DeliverIssueComment(ctx context.Context, ref board.Ref, c board.Comment, externalID string) (board.Comment, error) {
	if err := c.Validate(); err != nil {
		return board.Comment{}, err
	}
	if externalID == "" {
		return board.Comment{}, board.Errorf(board.EINVALID, "a delivered comment needs the tracker's id")
	}
	return onTicket(ctx, db, ref, "deliver comment "+externalID+" to", func(tx *tx, t board.Ticket) (board.Comment, error) {
		err := tx.claimIssueComment(t.ID, "in", externalID, "")
		if err == nil {
			c, err = tx.addComment(&t, c)
		}
		if err != nil {
			return c, err
		}
		_, err = tx.exec(`UPDATE issue_comments SET comment_id = ? WHERE ticket_id = ? AND direction = 'in' AND external_id = ?`,
			c.ID, t.ID, externalID)
		return c, err
	})
}

// claimIssueComment records a comment crossing between a ticket and its
// issue; one recorded before (either id, for a posted one) is ECONFLICT.
func (tx *tx) claimIssueComment(ticketID, direction, externalID, commentID string) error {
	err := tx.expect(false, board.Errorf(board.ECONFLICT, "comment %s already crossed (%s)", externalID+commentID, direction),
		`SELECT 1 FROM issue_comments WHERE ticket_id = ? AND direction = ? AND
		(external_id = ? OR (comment_id = ? AND comment_id <> ''))`, ticketID, direction, externalID, commentID)
	if err != nil {
		return err
	}
	_, err = tx.exec(`INSERT INTO issue_comments (ticket_id, direction, external_id, comment_id, created_at) VALUES (?, ?, ?, ?, ?)`,
		ticketID, direction, externalID, commentID, tx.nowMs())
	if err != nil && tx.db.conflict(err) {
		return board.Errorf(board.ECONFLICT, "comment %s already crossed (%s)", externalID, direction)
	}
	return err
}

// RecordPostedComment records a ticket comment posted to its issue.
func (db *DB) RecordPostedComment(ctx context.Context, ref board.Ref, commentID, externalID string) error {
	if commentID == "" || externalID == "" {
		return board.Errorf(board.EINVALID, "a posted comment needs the ticket's comment id and the tracker's")
	}
	_, err := onTicket(ctx, db, ref, "record as posted comment "+commentID+" of", func(tx *tx, t board.Ticket) (any, error) {
		if !strings.HasPrefix(commentID, board.PostedPlanPrefix) { // a plan is not a comment
			err := tx.expect(true, board.Errorf(board.ENOTFOUND, "comment %s of %s not found", commentID, ref),
				`SELECT 1 FROM comments WHERE id = ? AND ticket_id = ?`, commentID, t.ID)
			if err != nil {
				return nil, err
			}
		}
		return nil, tx.claimIssueComment(t.ID, "out", externalID, commentID)
	})
	return err
}

// PostedComments returns a ticket's comments posted to its issue.
func (db *DB) PostedComments(ctx context.Context, ref board.Ref) (map[string]string, error) {
	t, err := getTicket(ctx, db, ref)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	err = each(ctx, db, func(s scanner) error {
		var c, e string
		err := s.Scan(&c, &e)
		out[c] = e
		return err
	}, `SELECT comment_id, external_id FROM issue_comments WHERE ticket_id = ? AND direction = 'out'`, t.ID)
	return result(out, wrap(err, "list the posted comments of %s", ref))
}

// TrackerLimit returns a project's tracker rate limit.
func (db *DB) TrackerLimit(ctx context.Context, projectSlug string) (board.TrackerLimit, error) {
	p, err := getProject(ctx, db, projectSlug)
	if err != nil {
		return board.TrackerLimit{}, err
	}
	l := board.TrackerLimit{ProjectSlug: p.Slug}
	err = db.queryRowContext(ctx, `SELECT tracker, limited_until, detail, login, token_sum, updated_at FROM tracker_limits
		WHERE project_id = ?`, p.ID).Scan(&l.Tracker, msOrZero{&l.Until}, &l.Detail, &l.Login, &l.TokenSum, ms{&l.UpdatedAt})
	return result(l, wrap(absent(err), "read the tracker limit of %s", projectSlug))
}

// SaveTrackerLimit stores or removes a project's tracker rate limit.
func (db *DB) SaveTrackerLimit(ctx context.Context, l board.TrackerLimit) (board.TrackerLimit, error) {
	err := db.inTx(ctx, false, func(tx *tx) error {
		p, err := getProject(ctx, tx, l.ProjectSlug)
		if err != nil {
			return err
		}
		var keep bool
		l.ProjectSlug = p.Slug
		if l, keep = l.Kept(); !keep {
			_, err = tx.exec(`DELETE FROM tracker_limits WHERE project_id = ?`, p.ID)
			return err
		}
		l.UpdatedAt = tx.now
		_, err = tx.exec(`INSERT INTO tracker_limits (project_id, tracker, limited_until, detail, login, token_sum, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_id) DO UPDATE SET tracker = excluded.tracker,
			limited_until = excluded.limited_until, detail = excluded.detail, login = excluded.login, token_sum = excluded.token_sum,
			updated_at = excluded.updated_at`,
			p.ID, string(l.Tracker), zeroOr0(l.Until), l.Detail, l.Login, l.TokenSum, tx.nowMs())
		return err
	})
	if err != nil {
		return board.TrackerLimit{}, wrap(err, "save the tracker limit of %s", l.ProjectSlug)
	}
	return l, nil
}
