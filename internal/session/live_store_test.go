package session_test

import (
	"context"
	"errors"
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

// memLive is a live file kept the way a store keeps it (WriteLive): fresh
// data replaces it, other data is appended. failFirst makes its first
// write fail.
type memLive struct {
	mu        sync.Mutex
	data      []byte
	writes    int
	fresh     int
	failFirst bool
}

func (m *memLive) write(_ context.Context, data []byte, fresh bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes++
	if m.failFirst && m.writes == 1 {
		return errors.New("connection refused")
	}
	if fresh {
		m.data = append([]byte(nil), data...)
		m.fresh++
	} else {
		m.data = append(m.data, data...)
	}
	return nil
}

func (m *memLive) get() (string, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return string(m.data), m.writes
}

// until waits for ok, failing after a generous deadline.
func until(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLiveWriter_StoreHoldsWhatTheFileHolds(t *testing.T) {
	dir := t.TempDir()
	transcript := filepath.Join(dir, session.TranscriptFileName)
	os.WriteFile(transcript, []byte(`{"type":"session"}`+"\n"), 0o600)
	var st memLive
	w := session.NewLiveWriter(transcript, nil)
	w.SetStore(st.write)
	sameAsFile := func() bool {
		b, _ := os.ReadFile(w.Path())
		got, _ := st.get()
		return len(b) > 0 && got == string(b)
	}

	w.Start()
	w.Delta(llm.Event{Type: llm.EventTextDelta, Delta: "Reading "})
	until(t, "the first batch", func() bool { got, _ := st.get(); return strings.Contains(got, "Reading ") })
	// Many deltas: appended to the stored message, in order, in batches.
	for i := range 50 {
		w.Delta(llm.Event{Type: llm.EventTextDelta, Delta: string(rune('a' + i%26))})
		if i%10 == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	w.End()
	until(t, "the first message's end", sameAsFile)
	first, _ := st.get()
	if !strings.HasSuffix(first, `{"type":"done"}`+"\n") {
		t.Fatalf("stored message %q", first)
	}

	// The next message replaces the stored one.
	os.WriteFile(transcript, []byte(`{"type":"session"}`+"\n"+`{"type":"message"}`+"\n"), 0o600)
	w.Start()
	w.Delta(llm.Event{Type: llm.EventTextDelta, Delta: "Next"})
	until(t, "the second message", func() bool { got, _ := st.get(); return strings.Contains(got, "Next") && sameAsFile() })
	if got, _ := st.get(); strings.Contains(got, "Reading") || !strings.HasPrefix(got, `{"type":"message","at":38}`) {
		t.Fatalf("second stored message %q", got)
	}

	// Close empties it: the run is over.
	w.Close()
	if got, _ := st.get(); got != "" {
		t.Fatalf("the stored live file outlives Close: %q", got)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.fresh != 3 {
		t.Fatalf("%d fresh writes, want 3 (two messages, then Close)", st.fresh)
	}
}

// A failed write to the store is logged once and skips the rest of its
// message (appending it would mix two messages); the next message is
// stored whole, and the file never missed a line.
func TestLiveWriter_StoreFailureSkipsTheMessage(t *testing.T) {
	dir := t.TempDir()
	transcript := filepath.Join(dir, session.TranscriptFileName)
	os.WriteFile(transcript, []byte(`{"type":"session"}`+"\n"), 0o600)
	st := memLive{failFirst: true}
	var logged strings.Builder
	w := session.NewLiveWriter(transcript, slog.New(slog.NewTextHandler(&syncWriter{w: &logged}, nil)))
	defer w.Close()
	w.SetStore(st.write)

	w.Start()
	w.Delta(llm.Event{Type: llm.EventTextDelta, Delta: "lost"})
	until(t, "the failed write", func() bool { _, n := st.get(); return n == 1 })
	w.Delta(llm.Event{Type: llm.EventTextDelta, Delta: " and skipped"})
	w.End()
	until(t, "the file's end of message", func() bool {
		b, _ := os.ReadFile(w.Path())
		return strings.Contains(string(b), `"done"`)
	})
	w.Start()
	w.Delta(llm.Event{Type: llm.EventTextDelta, Delta: "kept"})
	until(t, "the next message", func() bool { got, _ := st.get(); return strings.Contains(got, "kept") })
	if got, _ := st.get(); strings.Contains(got, "skipped") {
		t.Fatalf("the store holds the rest of a message whose start failed: %q", got)
	}
	if out := logged.String(); strings.Count(out, "live activity") != 1 || !strings.Contains(out, "connection refused") {
		t.Fatalf("the failure is not logged once: %q", out)
	}
}
