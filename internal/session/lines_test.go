package session_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/session"
)

// readAll feeds what the file holds past the reader's offset and returns
// the complete lines, oversized ones as "over:<size>".
func readAll(t *testing.T, path string, lr *session.LineReader) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	var out []string
	if err := session.ReadLines(f, lr, fi.Size(), func(l session.Line) {
		if l.Over {
			out = append(out, "over:"+strconv.FormatInt(l.Size(), 10))
		} else {
			out = append(out, string(l.Data))
		}
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLineReader_PartialAndOversizedLines(t *testing.T) {
	path := t.TempDir() + "/t.jsonl"
	os.WriteFile(path, []byte("one\ntw"), 0o644)
	lr := session.NewLineReader(0, 2000)
	if got := readAll(t, path, lr); len(got) != 1 || got[0] != "one" || lr.Complete() != 4 {
		t.Fatalf("lines %q, complete %d", got, lr.Complete())
	}
	fh, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	fh.WriteString("o\nthree\n")
	// A line far over the limit, written in pieces: the reader never holds
	// more than the limit of it.
	for range 50 {
		fh.WriteString(strings.Repeat("x", 1000))
		if got := readAll(t, path, lr); len(got) > 0 && got[0] != "two" || lr.Held() > 2000 {
			t.Fatalf("lines %q, holding %d bytes of an unfinished line", got, lr.Held())
		}
	}
	fh.WriteString("\nfour\n")
	fh.Close()
	if got := readAll(t, path, lr); strings.Join(got, ",") != "over:50000,four" {
		t.Fatalf("lines after the long one %q", got)
	}
}
