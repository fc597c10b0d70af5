package boardcopy

import (
	"context"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/store"
)

// AttachmentFiles is a SQLite board as a copy reads it with its
// attachment files: on one machine an attachment's bytes are a file in
// the data directory, and attachment_blobs.data is NULL. Copy and Verify
// read that column as the file's bytes where the row has none, and as
// bytes whichever way the store returned them, so a shared store gets
// every picture.
type AttachmentFiles struct {
	store.Copier
	// Read returns the bytes of a SHA-256 from the data directory.
	Read func(sum string) ([]byte, error)
}

// ReadTable implements store.Copier.
func (c *AttachmentFiles) ReadTable(ctx context.Context, t store.Table, each func(row []any) error) error {
	if t.Name != "attachment_blobs" {
		return c.Copier.ReadTable(ctx, t, each)
	}
	return c.Copier.ReadTable(ctx, t, func(row []any) error {
		sum, _ := row[0].(string)
		switch v := row[2].(type) {
		case nil:
			data, err := c.Read(sum)
			if err != nil {
				return fmt.Errorf("attachment %.12s: %w; restore the file in the attachments directory, or the board's copy would lose it", sum, err)
			}
			row[2] = data
		case string:
			row[2] = []byte(v)
		}
		return each(row)
	})
}
