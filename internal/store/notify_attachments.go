package store

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// NotifyAttachments finds the files a notification links (issue 30).
type NotifyAttachments interface {
	// EventAttachments returns the files that came with event id, oldest
	// first: those of the comment its data names (commentId), or, for a
	// ticket.moved event, those of the completion comment its mover
	// posted just before it (the agent's evidence). An event with
	// neither has none; an unknown event is ENOTFOUND.
	EventAttachments(ctx context.Context, id int64) ([]board.Attachment, error)
}
