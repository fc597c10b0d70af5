package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// waitIdle waits until the writer has nothing pending and no write in
// flight.
func waitIdle(t *testing.T, w *session.LiveWriter) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !w.Idle() {
		if time.Now().After(deadline) {
			t.Fatal("the live writer is not idle after 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A message that is complete before its first write gets no live file
// (it would start done and show nothing), and the file of the message
// before it stays as it was; a message that streams gets its file, with
// its message line, once it has content.
func TestLiveWriter_NoFileForAMessageCompleteInOneWrite(t *testing.T) {
	dir := t.TempDir()
	transcript := filepath.Join(dir, session.TranscriptFileName)
	os.WriteFile(transcript, []byte(`{"type":"session"}`+"\n"), 0o600)
	w := session.NewLiveWriter(transcript, nil)
	defer w.Close()
	r := session.NewLiveReader(w.Path(), 1<<10)

	release := w.HoldWrites()
	w.Start()
	w.Delta(llm.Event{Type: llm.EventTextDelta, Delta: "All at once."})
	w.End()
	release()
	waitIdle(t, w)
	if _, err := os.Stat(w.Path()); !os.IsNotExist(err) {
		b, _ := os.ReadFile(w.Path())
		t.Fatalf("a message complete within one write made a live file (%v): %q", err, b)
	}

	// The next message streams: its file is made with its first content.
	w.Start()
	w.Delta(llm.Event{Type: llm.EventTextDelta, Delta: "Streaming"})
	fi, _ := os.Stat(transcript)
	pollUntil(t, r, "the streaming message", func() bool { return streamed(r, fi.Size()) == "text::Streaming;" })
	w.End()
	waitIdle(t, w)
	before, err := os.ReadFile(w.Path())
	if err != nil || !strings.HasPrefix(string(before), `{"type":"message","at":`) || !strings.HasSuffix(string(before), `{"type":"done"}`+"\n") {
		t.Fatalf("the streamed message's file = %q, %v", before, err)
	}

	// Another message complete within one write leaves that file alone.
	release = w.HoldWrites()
	w.Start()
	w.Delta(llm.Event{Type: llm.EventTextDelta, Delta: "Quick."})
	w.End()
	release()
	waitIdle(t, w)
	if after, err := os.ReadFile(w.Path()); err != nil || string(after) != string(before) {
		t.Fatalf("the live file changed to %q (%v), want the last streamed message's %q", after, err, before)
	}
	r.Poll()
	if _, _, ok := r.Streaming(); ok {
		t.Fatal("a reader shows a message streaming")
	}
}
