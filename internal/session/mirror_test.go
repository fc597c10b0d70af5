package session_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// lineCopy keeps the lines a File mirrors, refusing a line out of turn
// (as the store does) and, when failAt is set, the line of that number.
type lineCopy struct {
	lines  [][]byte
	failAt int64 // 0: never (the header cannot fail)
	calls  int
}

var errRefused = errors.New("store unreachable")

func (c *lineCopy) MirrorLine(n int64, line []byte) error {
	c.calls++
	if n != int64(len(c.lines)) {
		return fmt.Errorf("line %d out of turn: %d stored", n, len(c.lines))
	}
	if c.failAt != 0 && n == c.failAt {
		return errRefused
	}
	c.lines = append(c.lines, bytes.Clone(line))
	return nil
}

// file is the file the stored lines make.
func (c *lineCopy) file() []byte {
	var b []byte
	for _, l := range c.lines {
		b = append(append(b, l...), '\n')
	}
	return b
}

func mirrored(c *lineCopy) session.Options {
	o := fixed()
	o.Mirror = c
	return o
}

func sameBytes(t *testing.T, path string, c *lineCopy) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, c.file()) {
		t.Fatalf("the file and its mirror differ:\n--- file\n%s\n--- mirror\n%s", got, c.file())
	}
}

// TestMirror_GetsEveryLineExactly: the header and every entry reach the
// mirror in order, and the stored lines make the file byte for byte.
func TestMirror_GetsEveryLineExactly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	c := &lineCopy{}
	s := must(session.Create(path, "p", mirrored(c)))
	must(s.AppendModelChange("test/m", llm.ThinkingOff))
	must(s.AppendMessage(llm.UserText("héllo \"quoted\" <b>"), nil))
	must(s.AppendMessage(assistant("hi"), []byte(`{"k":1}`)))
	must(s.AppendLabel(s.Leaf(), "mark"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(c.lines) != 5 {
		t.Fatalf("mirrored %d lines, want 5 (header and 4 entries)", len(c.lines))
	}
	sameBytes(t, path, c)
}

// TestMirror_RefusedLineIsNotWritten: a line the mirror refuses is not in
// the file, the append fails with the mirror's error, and every later
// write fails without asking the mirror, so it never has a gap.
func TestMirror_RefusedLineIsNotWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	c := &lineCopy{failAt: 2}
	s := must(session.Create(path, "p", mirrored(c)))
	defer s.Close()
	must(s.AppendMessage(llm.UserText("one"), nil))
	_, err := s.AppendMessage(llm.UserText("two"), nil)
	var me *session.ErrMirror
	if !errors.As(err, &me) || me.Line != 2 || !errors.Is(err, errRefused) {
		t.Fatalf("append = %v, want the mirror's refusal of line 2", err)
	}
	calls := c.calls
	if _, err := s.AppendMessage(llm.UserText("three"), nil); !errors.Is(err, errRefused) {
		t.Fatalf("append after a refusal = %v, want the same refusal", err)
	}
	if c.calls != calls {
		t.Error("the mirror was asked again after it refused a line")
	}
	if got := len(s.Entries()); got != 1 {
		t.Errorf("the session holds %d entries, want 1", got)
	}
	sameBytes(t, path, c)
}

// TestMirror_OpenNumbersAfterTheFile: a File opened on a copy of the
// mirror's lines goes on at the next number, and Open's repairs (the
// result of a tool call a killed process left) reach the mirror too.
func TestMirror_OpenNumbersAfterTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	c := &lineCopy{}
	s := must(session.Create(path, "p", mirrored(c)))
	must(s.AppendMessage(llm.UserText("go"), nil))
	must(s.AppendMessage(assistant("", llm.ToolCall("c1", "bash", []byte(`{"command":"sleep 60"}`))), nil))
	s.Close() // killed mid-tool

	r := must(session.Open(path, mirrored(c)))
	if len(c.lines) != 4 {
		t.Fatalf("mirrored %d lines after the repair, want 4", len(c.lines))
	}
	must(r.AppendMessage(llm.UserText("again"), nil))
	r.Close()
	sameBytes(t, path, c)
}

// TestMirror_EmptyFileHeader: the header Open writes into an empty file
// is line 0 of the mirror.
func TestMirror_EmptyFileHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := &lineCopy{}
	s := must(session.Open(path, mirrored(c)))
	must(s.AppendMessage(llm.UserText("go"), nil))
	s.Close()
	if len(c.lines) != 2 {
		t.Fatalf("mirrored %d lines, want the header and one entry", len(c.lines))
	}
	sameBytes(t, path, c)
}

// TestMirror_StaleFileIsRefused: a file holding a line the mirror lacks
// (here a torn last line) numbers its next line past the mirror's end,
// which the mirror refuses: a stale file never writes into the copy.
func TestMirror_StaleFileIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	c := &lineCopy{}
	s := must(session.Create(path, "p", mirrored(c)))
	must(s.AppendMessage(llm.UserText("go"), nil))
	s.Close()
	f := must(os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0))
	if _, err := f.WriteString(`{"type":"message","id":"torn`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r := must(session.Open(path, mirrored(c)))
	defer r.Close()
	if _, err := r.AppendMessage(llm.UserText("next"), nil); err == nil {
		t.Fatal("a file ahead of its mirror wrote into it")
	}
	if len(c.lines) != 2 {
		t.Errorf("the mirror holds %d lines, want 2", len(c.lines))
	}
}

// TestMirror_ForkIsNotMirrored: a fork is a file of its own.
func TestMirror_ForkIsNotMirrored(t *testing.T) {
	dir := t.TempDir()
	c := &lineCopy{}
	s := must(session.Create(filepath.Join(dir, "s.jsonl"), "p", mirrored(c)))
	defer s.Close()
	e := must(s.AppendMessage(llm.UserText("go"), nil))
	f := must(s.Fork(e.ID, filepath.Join(dir, "fork.jsonl")))
	must(f.AppendMessage(llm.UserText("elsewhere"), nil))
	f.Close()
	if len(c.lines) != 2 {
		t.Errorf("the mirror holds %d lines, want the original's 2", len(c.lines))
	}
}
