package heartbeat

import (
	"context"
	"log/slog"

	"github.com/bonsai-run/bonsai/internal/board"
)

// commenter is the store's AddComment.
type commenter interface {
	AddComment(ctx context.Context, ref board.Ref, c board.Comment) (board.Comment, error)
}

// ticketNotes posts the runtime's comments on one ticket. A failure is
// logged, never fatal: the comment only tells people what the run did.
type ticketNotes struct {
	store commenter
	ref   board.Ref
	log   *slog.Logger
}

// note posts content as the runtime, a comment of kind.
func (n ticketNotes) note(ctx context.Context, kind board.CommentKind, content string) {
	n.post(ctx, board.Comment{AuthorType: board.System, AuthorName: runtimeAuthor, Kind: kind, Content: content}, "post runtime comment")
}

// ask posts content as a question of the agent's, which blocks the
// ticket until a person replies (as ticket_ask does, so a notification
// keyed on questions fires), and reports whether it was posted; what is
// logged on failure.
func (n ticketNotes) ask(ctx context.Context, content, what string) bool {
	return n.post(ctx, board.Comment{AuthorType: board.Agent, AuthorName: runtimeAuthor, Kind: board.KindQuestion, Content: content}, what)
}

// post posts c, logging what failed; it reports whether it was posted.
func (n ticketNotes) post(ctx context.Context, c board.Comment, what string) bool {
	if _, err := n.store.AddComment(ctx, n.ref, c); err != nil {
		n.log.Error(what, "err", err)
		return false
	}
	return true
}
