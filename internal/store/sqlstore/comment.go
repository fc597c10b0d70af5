package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/bonsai-run/bonsai/internal/board"
)

const commentColumns = `id, ticket_id, author_type, author_name, kind, content, resolved, created_at`

func scanComment(s scanner) (board.Comment, error) {
	var c board.Comment
	err := s.Scan(&c.ID, &c.TicketID, &c.AuthorType, &c.AuthorName, &c.Kind, &c.Content, &c.Resolved, ms{&c.CreatedAt})
	return c, err
}

// AddComment validates c and adds it to the ticket. The ticket's sub-state
// follows board.ApplyComment (a human reply clears "blocked", an agent
// question sets it) and its updated time is bumped, in the same transaction.
func (db *DB) AddComment(ctx context.Context, ref board.Ref, c board.Comment) (board.Comment, error) {
	if err := c.Validate(); err != nil {
		return board.Comment{}, err
	}
	return onTicket(ctx, db, ref, "comment on", func(tx *tx, t board.Ticket) (board.Comment, error) {
		return tx.addComment(&t, c)
	})
}

// addComment inserts c on t, applies it to t and records the event. A new
// comment is unresolved.
func (tx *tx) addComment(t *board.Ticket, c board.Comment) (board.Comment, error) {
	c.ID, c.TicketID, c.Resolved, c.CreatedAt = tx.db.newID(), t.ID, false, tx.now
	_, err := tx.exec(`INSERT INTO comments (`+commentColumns+`) VALUES (?, ?, ?, ?, ?, ?, false, ?)`,
		c.ID, c.TicketID, string(c.AuthorType), c.AuthorName, string(c.Kind), c.Content, tx.nowMs())
	if err != nil {
		return c, err
	}
	before := t.SubState
	*t = board.ApplyComment(*t, c)
	if err := tx.saveTicket(t); err != nil {
		return c, err
	}
	data := map[string]any{"commentId": c.ID, "kind": c.Kind, "authorType": c.AuthorType}
	if t.SubState != before {
		data["subStateFrom"], data["subState"] = before, t.SubState
	}
	return c, tx.ticketEvent(board.EventCommentAdded, *t, c.AuthorType, data)
}

// Comments returns a ticket's thread, oldest first.
func (db *DB) Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error) {
	return ofTicket(ctx, db, ref, scanComment, "comments", `SELECT `+commentColumns+` FROM comments
		WHERE ticket_id = ? ORDER BY created_at, rowid`)
}

// ResolveComments marks the given human comments of the ticket resolved,
// with one event listing those that changed. Agent and system comments, and
// comments already resolved, are left as they are; an ID that is not a
// comment of the ticket is an ENOTFOUND error and changes nothing.
func (db *DB) ResolveComments(ctx context.Context, ref board.Ref, commentIDs []string) error {
	_, err := onTicket(ctx, db, ref, "resolve comments on", func(tx *tx, t board.Ticket) (any, error) {
		return nil, tx.markEach(t, commentIDs, `UPDATE comments SET resolved = true WHERE id = ?`, func(id string) (bool, error) {
			var author board.Actor
			var done bool
			err := tx.queryRow(`SELECT author_type, resolved FROM comments WHERE id = ? AND ticket_id = ?`,
				id, t.ID).Scan(&author, &done)
			if errors.Is(err, sql.ErrNoRows) {
				return false, board.Errorf(board.ENOTFOUND, "comment %q not found on ticket %s", id, ref)
			}
			return author == board.Human && !done, err
		}, board.EventCommentResolved, "commentIds")
	})
	return err
}

// markEach runs update (one ? for the ID) on each of ids, once, that
// check says is to change, then appends one event of typ on ticket t
// listing them under key; none changed, no event. An error of check
// changes nothing.
func (tx *tx) markEach(t board.Ticket, ids []string, update string, check func(id string) (bool, error), typ board.EventType, key string) error {
	var marked []string
	for _, id := range ids {
		change, err := check(id)
		if err != nil {
			return err
		}
		if !change || slices.Contains(marked, id) {
			continue
		}
		if _, err := tx.exec(update, id); err != nil {
			return err
		}
		marked = append(marked, id)
	}
	if len(marked) == 0 {
		return nil
	}
	return tx.ticketEvent(typ, t, board.System, map[string]any{key: marked})
}
