package web

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/session"
)

// TestTranscriptCache_FollowsTheStore: the copy of a stored transcript
// and live file holds exactly what the store holds; lines are appended
// to it and a streaming message's writes too (a reader following the file
// sees the same file grow), a new message is a new file, no live file
// removes the copy, and a copy removed behind the server's back is made
// again.
func TestTranscriptCache_FollowsTheStore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "t", board.InProgress)
	ctx := context.Background()
	c := newTranscriptCache(filepath.Join(t.TempDir(), "cache"), e.db, e.srv.log)
	add := func(first int64, lines ...string) {
		t.Helper()
		var bs [][]byte
		for _, l := range lines {
			bs = append(bs, []byte(l))
		}
		if err := e.db.AppendTranscript(ctx, tk.ID, first, bs); err != nil {
			t.Fatal(err)
		}
	}
	want := func(path, content string) os.FileInfo {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil && content != "" || string(b) != content {
			t.Fatalf("%s holds %q (%v), want %q", filepath.Base(path), b, err, content)
		}
		fi, _ := os.Stat(path)
		return fi
	}
	live := func(data string, fresh bool) {
		t.Helper()
		if err := e.db.WriteLive(ctx, tk.ID, []byte(data), fresh); err != nil {
			t.Fatal(err)
		}
	}

	add(0, `{"type":"session"}`, `{"type":"message","n":1}`)
	path := c.sync(ctx, tk.ProjectID, tk.ID)
	if path == "" {
		t.Fatal("no path")
	}
	first := want(path, `{"type":"session"}`+"\n"+`{"type":"message","n":1}`+"\n")
	if _, err := os.Stat(session.LivePath(path)); !os.IsNotExist(err) {
		t.Fatalf("a live file without one in the store: %v", err)
	}
	add(2, `{"type":"message","n":2}`)
	c.sync(ctx, tk.ProjectID, tk.ID)
	if fi := want(path, `{"type":"session"}`+"\n"+`{"type":"message","n":1}`+"\n"+`{"type":"message","n":2}`+"\n"); !os.SameFile(fi, first) {
		t.Fatal("the transcript's copy was replaced, not appended to")
	}

	lp := session.LivePath(path)
	live(`{"type":"message","at":60}`+"\n", true)
	c.sync(ctx, tk.ProjectID, tk.ID)
	msg := want(lp, `{"type":"message","at":60}`+"\n")
	live(`{"type":"delta","d":"a"}`+"\n", false)
	c.sync(ctx, tk.ProjectID, tk.ID)
	if fi := want(lp, `{"type":"message","at":60}`+"\n"+`{"type":"delta","d":"a"}`+"\n"); !os.SameFile(fi, msg) {
		t.Fatal("a streaming message's copy was replaced, not appended to")
	}
	live(`{"type":"message","at":60}`+"\n"+`{"type":"delta","d":"b"}`+"\n", true) // as long, another message
	c.sync(ctx, tk.ProjectID, tk.ID)
	if fi := want(lp, `{"type":"message","at":60}`+"\n"+`{"type":"delta","d":"b"}`+"\n"); os.SameFile(fi, msg) {
		t.Fatal("a new message was written into the old one's file")
	}
	live("", true)
	c.sync(ctx, tk.ProjectID, tk.ID)
	if _, err := os.Stat(lp); !os.IsNotExist(err) {
		t.Fatalf("the live file's copy outlives the stored one: %v", err)
	}

	// Someone cleans the cache: the next sync fails, the one after makes
	// the copy again.
	if err := os.RemoveAll(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	add(3, `{"type":"message","n":3}`)
	for range 2 {
		c.sync(ctx, tk.ProjectID, tk.ID)
	}
	want(path, `{"type":"session"}`+"\n"+`{"type":"message","n":1}`+"\n"+`{"type":"message","n":2}`+"\n"+`{"type":"message","n":3}`+"\n")
}
