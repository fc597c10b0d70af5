package heartbeat

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
)

// TestRebuild: the file a run starts from is the store's lines; a file
// that was a prefix of them (behind, or torn mid-line) is replaced
// quietly, any other is kept aside under a name rebuild returns.
func TestRebuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlitetest.Open(ctx, filepath.Join(t.TempDir(), "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "https://example.com/d.git", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	lines := [][]byte{[]byte(`{"type":"session","version":1}`), []byte(`{"type":"message","n":1}`), []byte(`{"type":"message","n":2}`)}
	full := []byte(`{"type":"session","version":1}` + "\n" + `{"type":"message","n":1}` + "\n" + `{"type":"message","n":2}` + "\n")
	for _, c := range []struct {
		name   string
		stored int    // how many of lines the store holds
		local  []byte // nil: no file
		want   []byte // nil: no file
		kept   bool
	}{
		{name: "nothing", stored: 0},
		{name: "new machine", stored: 3, want: full},
		{name: "behind", stored: 3, local: full[:31], want: full},
		{name: "torn mid-line", stored: 3, local: full[:40], want: full},
		{name: "same", stored: 3, local: full, want: full},
		{name: "empty file", stored: 3, local: []byte{}, want: full},
		{name: "empty file, nothing stored", stored: 0, local: []byte{}, want: []byte{}},
		{name: "a line the store lacks", stored: 2, local: full, want: full[:56], kept: true},
		{name: "other bytes", stored: 3, local: bytes.Replace(full, []byte(`"n":1`), []byte(`"n":7`), 1), want: full, kept: true},
		{name: "nothing stored", stored: 0, local: full, kept: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: c.name}, board.Human)
			if err != nil {
				t.Fatal(err)
			}
			if c.stored > 0 {
				if err := db.AppendTranscript(ctx, tk.ID, 0, lines[:c.stored]); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(t.TempDir(), "transcript.jsonl")
			if c.local != nil {
				if err := os.WriteFile(path, c.local, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			kept, err := rebuild(ctx, db, tk.ID, path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			switch {
			case c.want == nil && !os.IsNotExist(err):
				t.Errorf("a file stands there (%v): %q", err, got)
			case c.want != nil && !bytes.Equal(got, c.want):
				t.Errorf("file = %q (%v), want %q", got, err, c.want)
			}
			if (kept != "") != c.kept {
				t.Fatalf("kept = %q, want kept %v", kept, c.kept)
			}
			if kept != "" {
				if b, _ := os.ReadFile(kept); !bytes.Equal(b, c.local) {
					t.Errorf("the copy kept aside is %q, want %q", b, c.local)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".transcript-*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// TestTranscriptCopy: on one machine the file is the transcript (no
// mirror); on a shared board the file is rebuilt from the store, a
// local file the store lacks is kept aside, and every line the run
// writes goes through the mirror.
func TestTranscriptCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlitetest.Open(ctx, filepath.Join(t.TempDir(), "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "https://example.com/d.git", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "t"}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AppendTranscript(ctx, tk.ID, 0, [][]byte{[]byte(`{"type":"session","version":1}`)}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	local := []byte(`{"type":"session","version":1}` + "\n" + `{"local":true}` + "\n")
	if err := os.WriteFile(path, local, 0o600); err != nil {
		t.Fatal(err)
	}
	m, kept, err := transcriptCopy{store: db}.prepare(ctx, tk.ID, path)
	if err != nil || m != nil || kept != "" {
		t.Fatalf("one machine: mirror %v, kept %q, err %v; want the file left as it is", m, kept, err)
	}
	m, kept, err = transcriptCopy{store: db, shared: true, timeout: time.Minute}.prepare(ctx, tk.ID, path)
	if err != nil || m == nil || kept == "" {
		t.Fatalf("shared board: mirror %v, kept %q, err %v; want a mirror and the local copy kept", m, kept, err)
	}
	if b, _ := os.ReadFile(kept); !bytes.Equal(b, local) {
		t.Fatalf("kept copy = %q, want the local file", b)
	}
	if err := m.MirrorLine(1, []byte(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := m.MirrorLine(1, []byte(`{"n":1}`)); err == nil {
		t.Fatal("a second writer of line 1 was not refused")
	}
}
