package cli

import "github.com/bonsai-run/bonsai/internal/board"

// attachLimits are config.json's attachment limits, the defaults when it
// cannot be read.
func (a *app) attachLimits() board.AttachmentLimits {
	c, err := a.config()
	if err != nil {
		return board.DefaultAttachmentLimits
	}
	return c.Attachments.Limits()
}
