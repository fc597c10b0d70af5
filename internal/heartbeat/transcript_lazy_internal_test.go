package heartbeat

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRebuild_NothingStoredTouchesNothing: a ticket whose transcript the
// store does not hold (every ticket's first run on one machine) makes no
// file in its session directory, not even a temporary one: the
// directory's modification time, set in the past, stays. A ticket with
// stored lines still gets its file from them.
func TestRebuild_NothingStoredTouchesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	db, tk := u.db, u.ticket
	dir := t.TempDir()
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(dir, past, past); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "transcript.jsonl")
	if kept, err := rebuild(ctx, db, tk.ID, path); err != nil || kept != "" {
		t.Fatalf("rebuild = %q, %v", kept, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().Equal(past) {
		t.Errorf("the session directory was written (modified %v, was %v): a file was made and removed", fi.ModTime(), past)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("the session directory holds %v", ents)
	}

	line := []byte(`{"type":"session","version":1}`)
	if err := db.AppendTranscript(ctx, tk.ID, 0, [][]byte{line}); err != nil {
		t.Fatal(err)
	}
	if _, err := rebuild(ctx, db, tk.ID, path); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != string(line)+"\n" {
		t.Fatalf("transcript = %q, %v; want the stored line", b, err)
	}
}
