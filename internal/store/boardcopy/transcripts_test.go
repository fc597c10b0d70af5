package boardcopy_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/boardcopy"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// TestTranscriptFiles: a SQLite board's session files reach Postgres as
// transcript lines, byte for byte (a torn last line left out and
// counted); a ticket without a file keeps its stored lines, a ticket with
// one takes the file's over stale stored lines; and the lines come back
// to SQLite.
func TestTranscriptFiles(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	a, err := sqlite.Open(ctx, filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "https://example.com/demo.git", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	var tks []board.Ticket
	for range 3 {
		tk, err := a.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "t"}, board.Human)
		if err != nil {
			t.Fatal(err)
		}
		tks = append(tks, tk)
	}
	sessions := filepath.Join(dir, "sessions")
	file := []byte(`{"type":"session","version":1,"id":"a"}` + "\n" + `{"type":"message","text":"héllo \u2028 🌱"}` + "\n")
	write := func(tk board.Ticket, b []byte) {
		p := filepath.Join(sessions, tk.ProjectID, tk.ID, "transcript.jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(tks[0], append(bytes.Clone(file), `{"type":"mess`...)) // torn by a crash
	write(tks[1], file)
	stale := [][]byte{[]byte(`{"type":"session","version":1,"id":"old"}`)}
	for _, tk := range tks[1:] {
		if err := a.AppendTranscript(ctx, tk.ID, 0, stale); err != nil {
			t.Fatal(err)
		}
	}
	src := &boardcopy.TranscriptFiles{Copier: a, Open: func(projectID, ticketID string) (io.ReadCloser, error) {
		return os.Open(filepath.Join(sessions, projectID, ticketID, "transcript.jsonl"))
	}}
	pg, err := postgres.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if _, err := boardcopy.Copy(ctx, src, pg); err != nil {
		t.Fatal(err)
	}
	if src.Files != 2 || src.Skipped != 1 {
		t.Errorf("Files, Skipped = %d, %d; want 2, 1", src.Files, src.Skipped)
	}
	want := [][]byte{file, file, append(stale[0], '\n')}
	for i, tk := range tks {
		if got := storedFile(t, pg, tk.ID); !bytes.Equal(got, want[i]) {
			t.Errorf("ticket %d in Postgres:\n%s\nwant\n%s", i+1, got, want[i])
		}
	}
	b, err := sqlite.Open(ctx, filepath.Join(dir, "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := boardcopy.Copy(ctx, pg, b); err != nil {
		t.Fatal(err)
	}
	for i, tk := range tks {
		if got := storedFile(t, b, tk.ID); !bytes.Equal(got, want[i]) {
			t.Errorf("ticket %d back in SQLite:\n%s\nwant\n%s", i+1, got, want[i])
		}
	}
}

// storedFile is the file a ticket's stored lines make.
func storedFile(t *testing.T, s store.Transcripts, ticketID string) []byte {
	t.Helper()
	var b []byte
	err := s.TranscriptLines(t.Context(), ticketID, 0, func(_ int64, line []byte) error {
		b = append(append(b, line...), '\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
