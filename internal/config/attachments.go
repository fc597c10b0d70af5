package config

import "github.com/bonsai-run/bonsai/internal/board"

// Attachments bounds the files on tickets (docs/attachments.md). 0,
// written "auto", is board.DefaultAttachmentLimits'.
type Attachments struct {
	// FileMiB is the largest file attached.
	FileMiB AutoInt `json:"fileMiB,omitzero"`
	// TicketMiB is the most a ticket's files may hold together.
	TicketMiB AutoInt `json:"ticketMiB,omitzero"`
}

// Limits returns the limits in bytes, "auto" as the default.
func (a Attachments) Limits() board.AttachmentLimits {
	l := board.DefaultAttachmentLimits
	if a.FileMiB > 0 {
		l.File = int64(a.FileMiB) << 20
	}
	if a.TicketMiB > 0 {
		l.Ticket = int64(a.TicketMiB) << 20
	}
	return l
}
