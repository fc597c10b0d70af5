package sqlstore

import (
	"context"
	"encoding/json"

	"github.com/bonsai-run/bonsai/internal/board"
)

// movedLookBack bounds the events read back from a move to find the
// completion comment posted with it: the comment, then its files (at
// most 8 a criterion), then the move.
const movedLookBack = 200

// EventAttachments implements store.NotifyAttachments.
func (db *DB) EventAttachments(ctx context.Context, id int64) ([]board.Attachment, error) {
	e, err := one(ctx, db, scanEvent, func() error { return board.Errorf(board.ENOTFOUND, "event %d not found", id) },
		`SELECT `+eventColumns+` FROM events WHERE id = ?`, id)
	if err != nil {
		return nil, wrap(err, "read event %d", id)
	}
	comment := eventField(e.Data, "commentId")
	if comment == "" && e.Type == board.EventTicketMoved && e.TicketID != "" {
		if comment, err = movedComment(ctx, db, e); err != nil {
			return nil, err
		}
	}
	if comment == "" || e.TicketID == "" {
		return nil, nil
	}
	as, err := list(ctx, db, scanAttachment, `SELECT `+attachmentColumns+` FROM attachments
		WHERE ticket_id = ? AND comment_id = ? ORDER BY created_at, id`, e.TicketID, comment)
	return result(as, wrap(err, "list the attachments of event %d", id))
}

// movedComment is the completion comment the mover of move posted just
// before it, when only the comment's files came between them: the ID of
// the comment, or "" when there is none.
func movedComment(ctx context.Context, db *DB, move board.Event) (string, error) {
	es, err := list(ctx, db, scanEvent, `SELECT `+eventColumns+` FROM events
		WHERE ticket_id = ? AND id < ? ORDER BY id DESC LIMIT ?`, move.TicketID, move.ID, movedLookBack)
	if err != nil {
		return "", wrap(err, "read the events before event %d", move.ID)
	}
	for _, e := range es {
		if e.Type == board.EventAttachmentAdded && e.Actor == move.Actor {
			continue
		}
		if e.Type == board.EventCommentAdded && e.Actor == move.Actor && eventField(e.Data, "kind") == string(board.KindCompletion) {
			return eventField(e.Data, "commentId"), nil
		}
		break
	}
	return "", nil
}

// eventField is a string field of an event's data; "" when it has none.
func eventField(data json.RawMessage, key string) string {
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	s, _ := m[key].(string)
	return s
}
