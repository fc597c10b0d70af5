package tools

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// The PDFs read returns as documents: what Anthropic's and OpenAI's APIs
// take in one request, with room for the rest of the conversation.
// MaxDocumentBytes is the largest PDF read returns.
const (
	MaxDocumentBytes = 10 << 20
	maxDocumentPages = 100
)

// pdfMagic starts every PDF file.
var pdfMagic = []byte("%PDF-")

// pdfPage matches a page object's type (not the /Pages tree nodes).
var pdfPage = regexp.MustCompile(`/Type\s*/Page(?:[^s]|$)`)

// pdfPages counts the page objects a PDF spells out; 0 when they are
// hidden in compressed object streams.
func pdfPages(data []byte) int {
	return len(pdfPage.FindAllIndex(data, -1))
}

// readPDF returns a PDF as a document part, with its path and SHA-256 (a
// transcript keeps those, not the bytes), or an error result over the
// limits. Models that do not take documents get a notice instead (the
// adapters replace the part).
func readPDF(name string, data []byte) tool.Result {
	hint := "Use bash with pdftotext (poppler-utils) to read its text, or split it with qpdf --pages."
	if len(data) > MaxDocumentBytes {
		return errorResult("PDF %s is %.1f MB, over the %d MB limit. %s", name, float64(len(data))/(1<<20), MaxDocumentBytes>>20, hint)
	}
	pages := pdfPages(data)
	if pages > maxDocumentPages {
		return errorResult("PDF %s has %d pages, over the %d-page limit. %s", name, pages, maxDocumentPages, hint)
	}
	sum := sha256.Sum256(data)
	size := fmt.Sprintf("%d bytes", len(data))
	switch {
	case pages == 1:
		size = fmt.Sprintf("1 page, %d bytes", len(data))
	case pages > 1:
		size = fmt.Sprintf("%d pages, %d bytes", pages, len(data))
	}
	return tool.Result{
		Content: []llm.Part{
			llm.Text(fmt.Sprintf("Read PDF file %s [%s]", name, size)),
			llm.Document("application/pdf", name, hex.EncodeToString(sum[:]), base64.StdEncoding.EncodeToString(data)),
		},
		Details: ReadDetails{Path: name, MIMEType: "application/pdf", Bytes: int64(len(data))},
	}
}
