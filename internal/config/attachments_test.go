package config

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

func TestAttachmentLimits(t *testing.T) {
	t.Parallel()
	if got := (Attachments{}).Limits(); got != board.DefaultAttachmentLimits {
		t.Errorf("auto limits = %+v, want the defaults", got)
	}
	got := Attachments{FileMiB: 2, TicketMiB: 3}.Limits()
	if got.File != 2<<20 || got.Ticket != 3<<20 {
		t.Errorf("limits = %+v", got)
	}
}
