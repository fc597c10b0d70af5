package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// newDBFile creates a database with a project and a few tickets, closed.
func newDBFile(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	sqlite.CopyTemplateForTest(t, path)
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "/src/demo", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if _, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: strings.Repeat("a ticket ", 20), Priority: 2}, board.Human); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestQuickCheck(t *testing.T) {
	ctx := context.Background()
	path := newDBFile(t)
	h, err := sqlite.QuickCheck(ctx, path)
	if err != nil || len(h.Problems) != 0 || h.Version != sqlite.SchemaVersion() || h.Supported != sqlite.SchemaVersion() {
		t.Fatalf("intact database: %+v, %v", h, err)
	}

	// A page in the middle overwritten: the file still opens, and the check
	// names what is broken.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096; i < 2*4096; i++ {
		b[i] = 0xA5
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	h, err = sqlite.QuickCheck(ctx, path)
	if err != nil || len(h.Problems) == 0 || !strings.Contains(h.Problems[0], "page 2") {
		t.Fatalf("a damaged page: %+v, %v; want the problems naming page 2", h, err)
	}

	// The header overwritten: not a database.
	for i := 0; i < 100; i++ {
		b[i] = 'x'
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.QuickCheck(ctx, path); !errors.Is(err, sqlite.ErrNotDatabase) || !strings.Contains(err.Error(), path) {
		t.Errorf("a damaged header: err = %v, want ErrNotDatabase naming the file", err)
	}
}

func TestQuickCheck_NeitherCreatesNorMigrates(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "bonsai.db")
	if _, err := sqlite.QuickCheck(ctx, missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("QuickCheck created %s", missing)
	}
	// A database of an older schema is left as it is.
	path := newDBFile(t)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	for range 2 {
		if h, err := sqlite.QuickCheck(ctx, path); err != nil || h.Version != 1 || len(h.Problems) != 0 {
			t.Errorf("older schema: %+v, %v; want version 1, untouched", h, err)
		}
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.QuickCheck(ctx, empty); !errors.Is(err, sqlite.ErrEmptyDatabase) {
		t.Errorf("empty file: err = %v", err)
	}
}
