package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// BlobFiles keeps attachments' bytes outside the database, one file per
// content (SQLite's data directory, Dialect.Blobs). A store without it
// keeps them in attachment_blobs.data.
type BlobFiles interface {
	// Write stores data as the file of its SHA-256 sum, atomically;
	// writing a sum already there changes nothing.
	Write(sum string, data []byte) error
	// Read returns the bytes of sum; an error wrapping fs.ErrNotExist
	// when there is no file (the bytes may be in the database).
	Read(sum string) ([]byte, error)
}

const attachmentColumns = `id, ticket_id, comment_id, name, media_type, size, sha256, author_type, author_name, created_at`

func scanAttachment(s scanner) (board.Attachment, error) {
	var a board.Attachment
	err := s.Scan(&a.ID, &a.TicketID, &a.CommentID, &a.Name, &a.MediaType, &a.Size, &a.SHA256,
		&a.AuthorType, &a.AuthorName, ms{&a.CreatedAt})
	return a, err
}

// AddAttachment stores a file on the ticket, its bytes in Dialect.Blobs
// when the engine has them (written before the transaction: a file no row
// names is harmless, a row without its file is not), else in the
// database.
func (db *DB) AddAttachment(ctx context.Context, ref board.Ref, n board.NewAttachment, l board.AttachmentLimits) (board.Attachment, error) {
	n, err := n.Validate()
	if err != nil {
		return board.Attachment{}, err
	}
	if l.File > 0 && int64(len(n.Data)) > l.File {
		return board.Attachment{}, l.FileTooLarge(n.Name, int64(len(n.Data)))
	}
	a := board.Attachment{CommentID: n.CommentID, Name: n.Name, MediaType: store.SniffMedia(n.Data),
		Size: int64(len(n.Data)), SHA256: store.ContentSHA256(n.Data), AuthorType: n.AuthorType, AuthorName: n.AuthorName}
	var inDB []byte
	if db.d.Blobs != nil {
		if err := db.d.Blobs.Write(a.SHA256, n.Data); err != nil {
			return board.Attachment{}, fmt.Errorf("store %s: %w", a.Name, err)
		}
	} else {
		inDB = n.Data
	}
	err = db.write(ctx, func(tx *tx) error { return tx.addAttachment(ref, &a, inDB, l) })
	return result(a, wrap(err, "attach %s to %s", a.Name, ref))
}

// addAttachment checks the ticket, comment and limit and inserts a.
func (tx *tx) addAttachment(ref board.Ref, a *board.Attachment, data []byte, l board.AttachmentLimits) error {
	t, err := getTicket(tx.ctx, tx, ref)
	if err != nil {
		return err
	}
	if a.CommentID != "" {
		err := tx.expect(true, board.Errorf(board.ENOTFOUND, "comment %s is not a comment of %s", a.CommentID, ref),
			`SELECT 1 FROM comments WHERE id = ? AND ticket_id = ?`, a.CommentID, t.ID)
		if err != nil {
			return err
		}
	}
	var held int64
	if err := tx.queryRow(`SELECT coalesce(sum(size), 0) FROM attachments WHERE ticket_id = ?`, t.ID).Scan(&held); err != nil {
		return err
	}
	if err := l.Check(a.Name, a.Size, held); err != nil {
		return err
	}
	if _, err := tx.exec(`INSERT INTO attachment_blobs (sha256, size, data) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
		a.SHA256, a.Size, data); err != nil {
		return err
	}
	a.ID, a.TicketID, a.CreatedAt = tx.db.newID(), t.ID, tx.now
	if _, err := tx.exec(`INSERT INTO attachments (`+attachmentColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.TicketID, a.CommentID, a.Name, a.MediaType, a.Size, a.SHA256, string(a.AuthorType), a.AuthorName, tx.nowMs()); err != nil {
		return err
	}
	added := map[string]any{"attachmentId": a.ID, "name": a.Name, "mediaType": a.MediaType, "size": a.Size, "sha256": a.SHA256}
	if a.CommentID != "" {
		added["commentId"] = a.CommentID
	}
	return tx.ticketEvent(board.EventAttachmentAdded, t, a.AuthorType, added)
}

// Attachments lists the ticket's attachments, oldest first.
func (db *DB) Attachments(ctx context.Context, ref board.Ref) ([]board.Attachment, error) {
	return ofTicket(ctx, db, ref, scanAttachment, "attachments",
		`SELECT `+attachmentColumns+` FROM attachments WHERE ticket_id = ? ORDER BY created_at, id`)
}

// AttachmentContent returns an attachment with its bytes: from its file
// in Dialect.Blobs when there is one, else (a board copied from a shared
// store) from the database.
func (db *DB) AttachmentContent(ctx context.Context, ref board.Ref, id string) (board.Attachment, []byte, error) {
	t, err := getTicket(ctx, db, ref)
	if err != nil {
		return board.Attachment{}, nil, err
	}
	a, err := one(ctx, db, scanAttachment, func() error {
		return board.Errorf(board.ENOTFOUND, "attachment %s is not an attachment of %s", id, ref)
	}, `SELECT `+attachmentColumns+` FROM attachments WHERE id = ? AND ticket_id = ?`, id, t.ID)
	if err != nil {
		return a, nil, wrap(err, "read attachment %s of %s", id, ref)
	}
	data, err := db.blob(ctx, a.SHA256)
	if err != nil {
		return a, nil, fmt.Errorf("read %s of %s: %w", a.Name, ref, err)
	}
	return a, data, nil
}

// blob reads the bytes of sum from Dialect.Blobs, else from the
// database, and checks them against their address.
func (db *DB) blob(ctx context.Context, sum string) ([]byte, error) {
	var data []byte
	var err error
	if db.d.Blobs != nil {
		data, err = db.d.Blobs.Read(sum)
	}
	if db.d.Blobs == nil || err != nil {
		var v any
		if qerr := db.queryRowContext(ctx, `SELECT data FROM attachment_blobs WHERE sha256 = ?`, sum).Scan(&v); qerr != nil {
			return nil, qerr
		}
		b, berr := textBytes(v, "data")
		if berr != nil {
			if err == nil {
				err = errors.New("its bytes are missing")
			}
			return nil, err
		}
		data, err = b, nil
	}
	if store.ContentSHA256(data) != sum {
		return nil, fmt.Errorf("its bytes do not match their SHA-256 %.12s: the stored file was changed", sum)
	}
	return data, nil
}

// FirstImages returns each ticket's oldest picture attachment, for the
// project's cards.
func (db *DB) FirstImages(ctx context.Context, projectSlug string) (map[string]board.Attachment, error) {
	out := map[string]board.Attachment{}
	err := each(ctx, db, func(s scanner) error {
		a, err := scanAttachment(s)
		out[a.TicketID] = a // the oldest comes last and stays
		return err
	}, `SELECT `+attachmentColumns+` FROM attachments WHERE ticket_id IN
		(SELECT t.id FROM tickets t JOIN projects p ON p.id = t.project_id WHERE p.slug = ?)
		AND media_type IN (?, ?, ?, ?) ORDER BY created_at DESC, id DESC`,
		projectSlug, board.MediaPNG, board.MediaJPEG, board.MediaGIF, board.MediaWebP)
	return result(out, wrap(err, "list pictures of %s", projectSlug))
}
