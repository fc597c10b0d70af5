package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/bonsai-run/bonsai/internal/board"
)

const approvalColumns = `id, project_id, ticket_id, run_id, command, rule, reason, pattern, status,
	always, used, note, decided_by, told, comment_id, created_at, decided_at`

func scanApproval(s scanner) (board.Approval, error) {
	var a board.Approval
	err := s.Scan(&a.ID, &a.ProjectID, &a.TicketID, &a.RunID, &a.Command, &a.Rule, &a.Reason, &a.Pattern,
		&a.Status, &a.Always, &a.Used, &a.Note, &a.DecidedBy, &a.Told, &a.CommentID, ms{&a.CreatedAt}, msPtr{&a.DecidedAt})
	return a, err
}

// getApproval reads one approval of a ticket; another ticket's is
// ENOTFOUND.
func getApproval(ctx context.Context, q queryer, t board.Ticket, id string) (board.Approval, error) {
	return one(ctx, q, scanApproval, func() error {
		return board.Errorf(board.ENOTFOUND, "no approval %q on %s; `bonsai ticket show %s` lists its approvals", id, t.Ref(), t.Ref())
	}, `SELECT `+approvalColumns+` FROM approvals WHERE id = ? AND ticket_id = ?`, id, t.ID)
}

// RequestApproval records the pending approval, the agent's request
// comment that blocks the ticket and the event in one transaction; an
// identical pending command is not asked twice, only blocked again.
func (db *DB) RequestApproval(ctx context.Context, ref board.Ref, a board.Approval, authorName string) (board.Approval, error) {
	if err := a.ValidateRequest(); err != nil {
		return board.Approval{}, err
	}
	return onTicket(ctx, db, ref, "request approval on", func(tx *tx, t board.Ticket) (board.Approval, error) {
		old, err := scanApproval(tx.queryRow(`SELECT `+approvalColumns+` FROM approvals
			WHERE ticket_id = ? AND status = 'pending' AND command = ? ORDER BY created_at, rowid LIMIT 1`, t.ID, a.Command))
		switch {
		case err == nil && t.SubState == board.SubBlocked:
			return old, nil
		case err == nil:
			before := t.SubState
			t.SubState = board.SubBlocked
			if err := tx.saveTicket(&t); err != nil {
				return old, err
			}
			return old, tx.ticketEvent(board.EventApprovalAsked, t, board.Agent, map[string]any{
				"approvalId": old.ID, "again": true, "subStateFrom": before, "subState": t.SubState})
		case !errors.Is(err, sql.ErrNoRows):
			return a, err
		}
		a.ID, a.ProjectID, a.TicketID, a.CreatedAt = db.newID(), t.ProjectID, t.ID, tx.now
		a.Status, a.Always, a.Used, a.Note, a.DecidedBy, a.Told, a.DecidedAt = board.ApprovalPending, false, false, "", "", false, nil
		c, err := tx.addComment(&t, board.Comment{AuthorType: board.Agent, AuthorName: authorName,
			Kind: board.KindPermission, Content: board.RequestText(a, ref)})
		if err != nil {
			return a, err
		}
		a.CommentID = c.ID
		_, err = tx.exec(`INSERT INTO approvals (id, project_id, ticket_id, run_id, command, rule, reason, pattern,
			comment_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.ProjectID, a.TicketID, a.RunID, a.Command, a.Rule, a.Reason, a.Pattern, a.CommentID, tx.nowMs())
		if err != nil {
			return a, err
		}
		return a, tx.ticketEvent(board.EventApprovalAsked, t, board.Agent, map[string]any{
			"approvalId": a.ID, "commentId": c.ID, "rule": a.Rule, "runId": a.RunID})
	})
}

// DecideApproval records a person's decision: the approval, their comment
// (which unblocks the ticket), the event and, for "always" with a pattern,
// the pattern on the project's Allow list.
func (db *DB) DecideApproval(ctx context.Context, ref board.Ref, id string, d board.ApprovalDecision) (board.Approval, error) {
	if err := d.Validate(); err != nil {
		return board.Approval{}, err
	}
	return onTicket(ctx, db, ref, "decide approval on", func(tx *tx, t board.Ticket) (board.Approval, error) {
		a, err := getApproval(ctx, tx, t, id)
		if err == nil {
			a, err = a.Decide(d, tx.now)
		}
		if err != nil {
			return a, err
		}
		data := map[string]any{"approvalId": a.ID, "status": a.Status, "always": a.Always}
		if a.Always && a.Pattern != "" {
			added, err := tx.allowPattern(ctx, t.ProjectSlug, a.Pattern)
			if err != nil {
				return a, err
			}
			if !added {
				// Already listed, or the list is full: the approval
				// itself grants the command.
				a.Pattern = ""
			}
			data["patternAdded"] = added
		}
		_, err = tx.exec(`UPDATE approvals SET status = ?, always = ?, note = ?, decided_by = ?, decided_at = ?,
			pattern = ? WHERE id = ?`, string(a.Status), a.Always, a.Note, a.DecidedBy, tx.nowMs(), a.Pattern, a.ID)
		if err != nil {
			return a, err
		}
		c, err := tx.addComment(&t, board.Comment{AuthorType: board.Human, AuthorName: d.By,
			Kind: board.KindPermission, Content: board.DecisionText(a)})
		if err != nil {
			return a, err
		}
		data["commentId"] = c.ID
		return a, tx.ticketEvent(board.EventApprovalDecided, t, board.Human, data)
	})
}

// allowPattern appends pattern to the project's Allow list, reporting
// whether it did: a pattern already listed, or a list at its limit, is
// left as it is.
func (tx *tx) allowPattern(ctx context.Context, slug, pattern string) (bool, error) {
	p, err := getProject(ctx, tx, slug)
	if err != nil {
		return false, err
	}
	if slices.Contains(p.Agent.Allow, pattern) {
		return false, nil
	}
	allow := append(slices.Clone(p.Agent.Allow), pattern)
	_, _, err = tx.updateProject(p, board.ProjectPatch{Allow: &allow}, board.Human)
	if board.ErrorCode(err) == board.EINVALID {
		return false, nil
	}
	return err == nil, err
}

// Approvals lists a ticket's approvals, oldest first.
func (db *DB) Approvals(ctx context.Context, ref board.Ref) ([]board.Approval, error) {
	return ofTicket(ctx, db, ref, scanApproval, "approvals", `SELECT `+approvalColumns+` FROM approvals
		WHERE ticket_id = ? ORDER BY created_at, rowid`)
}

// GrantedApproval returns the ticket's unused once-only grant of command,
// else the project's always-grant of it.
func (db *DB) GrantedApproval(ctx context.Context, ref board.Ref, command string) (board.Approval, error) {
	t, err := getTicket(ctx, db, ref)
	if err != nil {
		return board.Approval{}, err
	}
	a, err := one(ctx, db, scanApproval, func() error {
		return board.Errorf(board.ENOTFOUND, "no approval lets this command run on %s", ref)
	}, `SELECT `+approvalColumns+` FROM approvals WHERE command = ? AND status = 'allowed' AND (
			(ticket_id = ? AND NOT always AND NOT used) OR (project_id = ? AND always))
		ORDER BY always, created_at, rowid LIMIT 1`, command, t.ID, t.ProjectID)
	return result(a, wrap(err, "find approval on %s", ref))
}

// UseApproval uses up a once-only grant; an always-grant stays.
func (db *DB) UseApproval(ctx context.Context, ref board.Ref, id string) error {
	_, err := onTicket(ctx, db, ref, "use approval on", func(tx *tx, t board.Ticket) (any, error) {
		// An always-grant is the project's: any of its tickets uses it.
		a, err := one(ctx, tx, scanApproval, func() error { return board.Errorf(board.ENOTFOUND, "no approval %q on %s", id, ref) },
			`SELECT `+approvalColumns+` FROM approvals WHERE id = ? AND (ticket_id = ? OR (project_id = ? AND always))`, id, t.ID, t.ProjectID)
		switch {
		case err != nil:
			return nil, err
		case !a.Grants():
			return nil, board.Errorf(board.ECONFLICT, "approval %s does not let its command run (%s, used %v)", id, a.Status, a.Used)
		case a.Always:
			return nil, nil
		}
		if _, err = tx.exec(`UPDATE approvals SET used = true WHERE id = ?`, id); err != nil {
			return nil, err
		}
		return nil, tx.ticketEvent(board.EventApprovalUsed, t, board.System, map[string]any{"approvalId": id})
	})
	return err
}

// MarkApprovalsTold records that the agent was told the given decisions.
func (db *DB) MarkApprovalsTold(ctx context.Context, ref board.Ref, ids []string) error {
	_, err := onTicket(ctx, db, ref, "mark approvals told on", func(tx *tx, t board.Ticket) (any, error) {
		return nil, tx.markEach(t, ids, `UPDATE approvals SET told = true WHERE id = ?`, func(id string) (bool, error) {
			a, err := getApproval(ctx, tx, t, id)
			if err == nil && a.Status == board.ApprovalPending {
				err = board.Errorf(board.ECONFLICT, "approval %s is still pending; there is no decision to tell", id)
			}
			return !a.Told, err
		}, board.EventApprovalTold, "approvalIds")
	})
	return err
}
