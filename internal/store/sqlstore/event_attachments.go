package sqlstore

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// movedLookBack bounds the events read back from a move to find the
// completion comment posted with it: the comment, then its files (at
// most 8 a criterion), then the move.
const movedLookBack = 200

// EventAttachments implements store.NotifyAttachments: the files of the
// comment board.CommentOf names.
func (db *DB) EventAttachments(ctx context.Context, id int64) ([]board.Attachment, error) {
	e, err := one(ctx, db, scanEvent, func() error { return board.Errorf(board.ENOTFOUND, "event %d not found", id) },
		`SELECT `+eventColumns+` FROM events WHERE id = ?`, id)
	if err != nil || e.TicketID == "" {
		return nil, wrap(err, "read event %d", id)
	}
	var before []board.Event
	if e.Type == board.EventTicketMoved && e.Field("commentId") == "" {
		before, err = list(ctx, db, scanEvent, `SELECT `+eventColumns+` FROM events
			WHERE ticket_id = ? AND id < ? ORDER BY id DESC LIMIT ?`, e.TicketID, e.ID, movedLookBack)
		if err != nil {
			return nil, wrap(err, "read the events before event %d", id)
		}
	}
	comment := board.CommentOf(e, before)
	if comment == "" {
		return nil, nil
	}
	as, err := list(ctx, db, scanAttachment, `SELECT `+attachmentColumns+` FROM attachments
		WHERE ticket_id = ? AND comment_id = ? ORDER BY created_at, id`, e.TicketID, comment)
	return result(as, wrap(err, "list the attachments of event %d", id))
}
