package tools_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// minimalPDF returns a PDF with n pages spelled out as page objects.
func minimalPDF(n int) string {
	var b strings.Builder
	b.WriteString("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n")
	fmt.Fprintf(&b, "2 0 obj << /Type /Pages /Count %d /Kids [] >> endobj\n", n)
	for i := range n {
		fmt.Fprintf(&b, "%d 0 obj << /Type /Page /Parent 2 0 R >> endobj\n", i+3)
	}
	b.WriteString("trailer << /Root 1 0 R >>\n%%EOF\n")
	return b.String()
}

func TestRead_PDFIsADocument(t *testing.T) {
	root := t.TempDir()
	pdf := minimalPDF(3)
	writeTree(t, root, map[string]string{"docs/spec.pdf": pdf, "long.pdf": minimalPDF(101)})
	ts := newSet(t, root, tools.SearchGo)

	r := run(t, ts, "read", `{"path":"docs/spec.pdf"}`)
	sum := sha256.Sum256([]byte(pdf))
	if r.IsError || len(r.Content) != 2 {
		t.Fatalf("result = %+v", r)
	}
	if got := r.Content[0].Text; got != fmt.Sprintf("Read PDF file docs/spec.pdf [3 pages, %d bytes]", len(pdf)) {
		t.Errorf("text = %q", got)
	}
	d := r.Content[1]
	if d.Type != llm.PartDocument || d.MimeType != "application/pdf" || d.Path != "docs/spec.pdf" ||
		d.SHA256 != hex.EncodeToString(sum[:]) || d.Data != base64.StdEncoding.EncodeToString([]byte(pdf)) {
		t.Errorf("document part = %+v", d)
	}

	r = run(t, ts, "read", `{"path":"long.pdf"}`)
	if !r.IsError || !strings.Contains(r.Content[0].Text, "PDF long.pdf has 101 pages, over the 100-page limit. Use bash with pdftotext") {
		t.Errorf("101 pages: %+v", r)
	}

	big := filepath.Join(root, "big.pdf")
	if err := os.WriteFile(big, []byte("%PDF-1.7\n"+strings.Repeat("x", 11<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, ts, "read", `{"path":"big.pdf"}`)
	if !r.IsError || !strings.Contains(r.Content[0].Text, "PDF big.pdf is 11.0 MB, over the 10 MB limit.") {
		t.Errorf("11 MB: %+v", r.Content[0].Text)
	}
}
