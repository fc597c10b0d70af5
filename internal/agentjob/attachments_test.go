package agentjob

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
)

func attached(name, media string, data []byte) Attached {
	return Attached{Attachment: board.Attachment{Name: name, MediaType: media, Size: int64(len(data)), SHA256: fmt.Sprintf("%x", sha256.Sum256(data))}, Data: data}
}

func TestAttachmentParts_Bounds(t *testing.T) {
	t.Parallel()
	big := Attached{Attachment: board.Attachment{Name: "huge.png", MediaType: board.MediaPNG, Size: MaxAttachedImage + 1}}
	pdf := attached("spec.pdf", board.MediaPDF, []byte("%PDF-1.4"))
	long := attached("long.log", board.MediaText, []byte(strings.Repeat("é", MaxAttachedText)))
	files := []Attached{big, pdf, long, attached("more.log", board.MediaText, []byte("x"))}
	for range MaxAttachedImages + 1 {
		files = append(files, attached("p.png", board.MediaPNG, []byte("png bytes")))
	}
	parts := AttachmentParts(files, llm.Info{Images: true, Documents: false})
	text := parts[0].Text
	for _, want := range []string{"huge.png (image/png, 5.0 MiB", "a picture over the 5 MiB a model takes",
		"spec.pdf (application/pdf", "a PDF this model cannot read", "[… cut: ", "not shown: only the first 8 pictures are"} {
		if !strings.Contains(text, want) {
			t.Errorf("the listing lacks %q:\n%s", want, text)
		}
	}
	if len(parts) != 1+MaxAttachedImages {
		t.Errorf("%d parts, want the listing and %d pictures", len(parts), MaxAttachedImages)
	}
	withDocs := AttachmentParts([]Attached{pdf}, llm.Info{Documents: true})
	if len(withDocs) != 2 || withDocs[1].Type != llm.PartDocument || withDocs[1].SHA256 != pdf.SHA256 {
		t.Errorf("a model that takes documents got %+v", withDocs)
	}
	if NeedsBytes(big.Attachment) || !NeedsBytes(pdf.Attachment) || NeedsBytes(board.Attachment{MediaType: board.MediaBinary}) {
		t.Error("NeedsBytes reads what no model is sent, or skips what one is")
	}
}
