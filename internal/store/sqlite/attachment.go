package sqlite

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// blobFiles are this board's attachment files.
func (db *DB) blobFiles() sqlstore.BlobFiles {
	return store.BlobDir{Dir: store.AttachmentsDir(db.path)}
}

// AddAttachment stores the file's bytes in the data directory and its
// metadata in the database.
func (db *DB) AddAttachment(ctx context.Context, ref board.Ref, n board.NewAttachment, l board.AttachmentLimits) (board.Attachment, error) {
	return db.DB.AddAttachmentTo(ctx, db.blobFiles(), ref, n, l)
}

// AttachmentContent returns an attachment with its bytes: from its file
// in the data directory, else (a board copied from a shared store) from
// the database.
func (db *DB) AttachmentContent(ctx context.Context, ref board.Ref, id string) (board.Attachment, []byte, error) {
	return db.DB.AttachmentContentFrom(ctx, db.blobFiles(), ref, id)
}
