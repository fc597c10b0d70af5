package session_test

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// streamed renders what a reader holds of the message being streamed as
// "kind:name:text;" per part, or "" when none streams at transcript
// offset at.
func streamed(r *session.LiveReader, at int64) string {
	start, parts, ok := r.Streaming()
	if !ok || start != at {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Kind == "" || len(p.Text) == 0 && p.Name == "" {
			continue
		}
		b.WriteString(p.Kind + ":" + p.Name + ":" + string(p.Text) + ";")
	}
	return b.String()
}

// pollUntil polls r until ok accepts it.
func pollUntil(t *testing.T, r *session.LiveReader, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.Poll(); !ok(); r.Poll() {
		if time.Now().After(deadline) {
			at, parts, streaming := r.Streaming()
			t.Fatalf("%s: reader at %d, streaming %v, parts %+v", what, at, streaming, parts)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLive_RoundTrip(t *testing.T) {
	dir := t.TempDir()
	transcript := filepath.Join(dir, session.TranscriptFileName)
	if err := os.WriteFile(transcript, []byte(`{"type":"session"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := session.NewLiveWriter(transcript, nil)
	defer w.Close()
	if w.Path() != filepath.Join(dir, session.LiveFileName) {
		t.Fatalf("the writer writes %s", w.Path())
	}
	r := session.NewLiveReader(w.Path(), 1<<10)
	r.Poll()
	if _, _, ok := r.Streaming(); ok {
		t.Fatal("a missing file streams a message")
	}

	w.Start()
	w.Delta(llm.Event{Type: llm.EventThinkingDelta, Index: 0, Delta: "Where is the flag? "})
	w.Delta(llm.Event{Type: llm.EventTextDelta, Index: 1, Delta: "Reading "})
	w.Delta(llm.Event{Type: llm.EventTextDelta, Index: 1, Delta: `"main.go" <first>`})
	w.Delta(llm.Event{Type: llm.EventToolCallStart, Index: 2, Part: &llm.Part{Type: llm.PartToolCall, ID: "c1", Name: "read"}})
	w.Delta(llm.Event{Type: llm.EventToolCallDelta, Index: 2, Delta: `{"path":"ma`})
	w.Delta(llm.Event{Type: llm.EventTextEnd, Index: 1}) // no content: ignored
	fi, _ := os.Stat(transcript)
	want := `thinking::Where is the flag? ;text::Reading "main.go" <first>;toolCall:read:{"path":"ma;`
	pollUntil(t, r, "the first message", func() bool { return streamed(r, fi.Size()) == want })

	// The message ends: the reader shows nothing more of it.
	w.End()
	pollUntil(t, r, "the message's end", func() bool { _, _, ok := r.Streaming(); return !ok })

	// The next message, after the transcript grew, is a new file.
	if err := os.WriteFile(transcript, []byte(`{"type":"session"}`+"\n"+`{"type":"message"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(transcript)
	w.Start()
	w.Delta(llm.Event{Type: llm.EventTextDelta, Delta: "Next"})
	pollUntil(t, r, "the second message", func() bool { return streamed(r, fi.Size()) == "text::Next;" })

	// Closing removes the file, and the reader lets the message go.
	w.Close()
	if _, err := os.Stat(w.Path()); !os.IsNotExist(err) {
		t.Fatalf("the live file outlives Close: %v", err)
	}
	if _, err := os.Stat(w.Path() + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("a temporary live file is left: %v", err)
	}
	r.Poll()
	if _, _, ok := r.Streaming(); ok {
		t.Fatal("a removed file still streams")
	}
}

func TestLiveWriter_WithoutTranscriptWritesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile(session.LiveFileName, []byte("someone else's file\n"), 0o600)
	lw := session.NewLiveWriter("", nil)
	lw.Start()
	lw.Delta(llm.Event{Type: llm.EventTextDelta, Delta: "hi"})
	lw.Close()
	if b, err := os.ReadFile(session.LiveFileName); err != nil || string(b) != "someone else's file\n" {
		t.Fatalf("a LiveWriter without a transcript touched %s: %q, %v", session.LiveFileName, b, err)
	}
}

func TestLiveWriter_UnwritableDirectoryNeverFailsTheRun(t *testing.T) {
	dir := t.TempDir()
	transcript := filepath.Join(dir, "transcript.jsonl")
	os.WriteFile(transcript, []byte(`{"type":"session"}`+"\n"), 0o600)
	// A directory where the file should be: every write fails.
	if err := os.Mkdir(filepath.Join(dir, session.LiveFileName), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, session.LiveFileName, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	lw := session.NewLiveWriter(transcript, slog.New(slog.NewTextHandler(&syncWriter{w: &logged}, nil)))
	for range 3 {
		n := lw.Writes()
		lw.Start()
		lw.Delta(llm.Event{Type: llm.EventTextDelta, Delta: "hi"})
		for lw.Writes() == n { // the attempt has been made (a message ended before its first write gets none)
			time.Sleep(time.Millisecond)
		}
		lw.End()
	}
	lw.Close()
	out := logged.String()
	if strings.Count(out, "live activity") != 1 {
		t.Fatalf("the failure is not logged once: %q", out)
	}
}

// syncWriter lets the live writer's timer goroutine and the test share a
// log buffer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// writeLive writes a live file by hand, as a heartbeat of another version
// might.
func writeLive(t testing.TB, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func appendLive(t testing.TB, path, content string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

func TestLiveReader_Consistency(t *testing.T) {
	path := filepath.Join(t.TempDir(), session.LiveFileName)
	l := session.NewLiveReader(path, 16<<10)
	l.Poll()
	if got := streamed(l, 100); got != "" {
		t.Fatal("a missing file shows a partial")
	}
	cases := []struct {
		name  string
		do    func()
		at    int64
		want  string
		fresh bool // the write started a new file
	}{
		{"half a line is not read", func() {
			writeLive(t, path, `{"type":"message","at":100}`+"\n"+`{"type":"delta","i":0,"kind":"text","d":"Hel`)
		}, 100, "", true},
		{"the line completes", func() { appendLive(t, path, `lo"}`+"\n") }, 100, "text::Hello;", false},
		{"the transcript moved past the message", func() {}, 180, "", false},
		{"the stream has not caught up with the message", func() {}, 50, "", false},
		{"garbage lines are skipped", func() {
			appendLive(t, path, "not json\n"+`{"type":"delta","i":1,"kind":"toolCall","name":"bash"}`+"\n"+`{"type":"delta","i":1,"kind":"toolCall","d":"{\"command\":"}`+"\n")
		}, 100, `text::Hello;toolCall:bash:{"command":;`, false},
		{"done hides it", func() { appendLive(t, path, `{"type":"done"}`+"\n") }, 100, "", false},
		{"a new message replaces the file", func() {
			writeLive(t, path, `{"type":"message","at":180}`+"\n"+`{"type":"delta","kind":"text","d":"Next"}`+"\n")
		}, 180, "text::Next;", true},
		{"a file rewritten in place with another message is read from its start", func() {
			if err := os.WriteFile(path, []byte(`{"type":"message","at":190}`+"\n"+`{"type":"delta","kind":"text","d":"Rewritten in place"}`+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, 190, "text::Rewritten in place;", true},
		{"a file without a message line is ignored", func() {
			writeLive(t, path, `{"type":"delta","kind":"text","d":"orphan"}`+"\n")
		}, 190, "", true},
		{"a removed file hides it", func() {
			writeLive(t, path, `{"type":"message","at":180}`+"\n"+`{"type":"delta","kind":"text","d":"Again"}`+"\n")
			l.Poll()
			os.Remove(path)
		}, 180, "", true},
	}
	for _, c := range cases {
		before := l.Version()
		c.do()
		l.Poll()
		if got := streamed(l, c.at); got != c.want {
			t.Errorf("%s: partial %q, want %q", c.name, got, c.want)
		}
		if c.fresh && l.Version() == before {
			t.Errorf("%s: the reader did not notice the change", c.name)
		}
	}
}

func TestLiveReader_KeepsTheEndOfAHugePart(t *testing.T) {
	const tail = 1 << 10
	path := filepath.Join(t.TempDir(), session.LiveFileName)
	big := strings.Repeat("é", tail) // 2 bytes a rune
	writeLive(t, path, `{"type":"message","at":1}`+"\n")
	for range 16 {
		appendLive(t, path, `{"type":"delta","kind":"text","d":"`+big+`"}`+"\n")
	}
	appendLive(t, path, `{"type":"delta","kind":"text","d":"END"}`+"\n")
	l := session.NewLiveReader(path, tail)
	l.Poll()
	_, parts, ok := l.Streaming()
	if !ok || len(parts) != 1 {
		t.Fatalf("streaming %v, parts %d", ok, len(parts))
	}
	p := parts[0]
	if len(p.Text) < tail || len(p.Text) > 2*tail || !strings.HasSuffix(string(p.Text), "éEND") || p.Cut+len(p.Text) != 16*len(big)+3 {
		t.Fatalf("kept %d bytes (cut %d), ends %q", len(p.Text), p.Cut, p.Text[len(p.Text)-10:])
	}
	if cap(p.Text) > 8*tail {
		t.Fatalf("the reader keeps %d bytes of a part", cap(p.Text))
	}
}

func TestLiveFollower_OversizedDelta(t *testing.T) {
	path := filepath.Join(t.TempDir(), session.LiveFileName)
	big := strings.Repeat("y", 3<<20)
	os.WriteFile(path, []byte(`{"type":"message","at":10}`+"\n"+
		`{"type":"delta","i":1,"kind":"text","d":"start "}`+"\n"+
		`{"type":"delta","i":1,"kind":"text","d":"`+big+`"}`+"\n"+
		`{"type":"delta","i":1,"kind":"text","d":" and the end"}`+"\n"), 0o644)
	fi, _ := os.Stat(path)
	l := session.NewLiveReader(path, 16<<10)
	for l.Offset() < fi.Size() {
		l.Poll()
		if l.Held() > session.MaxLineBytes {
			t.Fatalf("the reader holds %d bytes of a line", l.Held())
		}
	}
	at, parts, ok := l.Streaming()
	if !ok || at != 10 || len(parts) != 2 || parts[0].Kind != "" || string(parts[1].Text) != " and the end" || parts[1].Cut < 3<<20 {
		t.Fatalf("streaming %v at %d, parts %+v", ok, at, parts)
	}
}
