package heartbeat

import (
	"context"
	"log/slog"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
)

// attachmentReader is what the brief reads of a ticket's files; every
// real store has it (store.Attachments).
type attachmentReader interface {
	Attachments(ctx context.Context, ref board.Ref) ([]board.Attachment, error)
	AttachmentContent(ctx context.Context, ref board.Ref, id string) (board.Attachment, []byte, error)
}

// readAttachments returns the ticket's files for the brief, with the
// bytes of those a model is sent and a reader of every file's (for the
// engines, which get them all as files); a file that cannot be read is listed
// without them (the brief says so) and logged, and does not stop the run.
func readAttachments(ctx context.Context, store any, ref board.Ref, log *slog.Logger) []agentjob.Attached {
	s, ok := store.(attachmentReader)
	if !ok {
		return nil
	}
	as, err := s.Attachments(ctx, ref)
	if err != nil {
		log.Warn("read the ticket's attachments", "error", err)
		return nil
	}
	out := make([]agentjob.Attached, 0, len(as))
	for _, a := range as {
		f := agentjob.Attached{Attachment: a, Read: func(ctx context.Context) ([]byte, error) {
			_, data, err := s.AttachmentContent(ctx, ref, a.ID)
			return data, err
		}}
		if agentjob.NeedsBytes(a) {
			if _, data, err := s.AttachmentContent(ctx, ref, a.ID); err == nil {
				f.Data = data
			} else {
				log.Warn("read an attachment", "name", a.Name, "error", err)
			}
		}
		out = append(out, f)
	}
	return out
}
