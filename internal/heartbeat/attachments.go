package heartbeat

import (
	"context"

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
// bytes of those a model is sent; a file that cannot be read is listed
// without them (the brief says so) and logged, and does not stop the run.
func (r *runState) readAttachments(ctx context.Context) []agentjob.Attached {
	s, ok := r.h.opts.Store.(attachmentReader)
	if !ok {
		return nil
	}
	ref := r.plan.Ticket.Ref()
	as, err := s.Attachments(ctx, ref)
	if err != nil {
		r.log.Warn("read the ticket's attachments", "error", err)
		return nil
	}
	out := make([]agentjob.Attached, 0, len(as))
	for _, a := range as {
		f := agentjob.Attached{Attachment: a}
		if agentjob.NeedsBytes(a) {
			if _, data, err := s.AttachmentContent(ctx, ref, a.ID); err == nil {
				f.Data = data
			} else {
				r.log.Warn("read an attachment", "name", a.Name, "error", err)
			}
		}
		out = append(out, f)
	}
	return out
}
