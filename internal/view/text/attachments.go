package text

import (
	"fmt"
	"io"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// writeAttachments lists a ticket's files: name, type, size and short
// SHA-256, which the web's attachment page and the transcript name too.
func writeAttachments(w io.Writer, as []board.Attachment) {
	if len(as) == 0 {
		return
	}
	fmt.Fprintf(w, "\nAttachments (%d):\n", len(as))
	for _, a := range as {
		on := ""
		if a.CommentID != "" {
			on = " · on a comment"
		}
		fmt.Fprintf(w, "  %s · %s · %s · by %s%s · sha256 %.12s\n", termsafe.Line(a.Name), a.MediaType, board.HumanSize(a.Size),
			termsafe.Line(a.AuthorName), on, a.SHA256)
	}
}
