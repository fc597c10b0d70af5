package store

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Attachments are files on tickets and comments (docs/attachments.md).
type Attachments interface {
	// AddAttachment stores a file on the ticket, or on its comment
	// a.CommentID, under limits: its bytes once per content (SHA-256),
	// its media type sniffed from them (SniffMedia), its name
	// sanitised, with an "attachment.added" event. A file over a limit
	// is EINVALID naming the limit; an unknown ticket or a comment not
	// of the ticket ENOTFOUND.
	AddAttachment(ctx context.Context, ref board.Ref, a board.NewAttachment, limits board.AttachmentLimits) (board.Attachment, error)
	// Attachments lists the ticket's attachments, oldest first.
	Attachments(ctx context.Context, ref board.Ref) ([]board.Attachment, error)
	// AttachmentContent returns one attachment of the ticket and its
	// bytes. An ID that is not an attachment of the ticket is ENOTFOUND.
	AttachmentContent(ctx context.Context, ref board.Ref, id string) (board.Attachment, []byte, error)
	// FirstImages returns, for each ticket of the project that has one,
	// its oldest picture attachment (a card's thumbnail), by ticket ID.
	FirstImages(ctx context.Context, projectSlug string) (map[string]board.Attachment, error)
}
