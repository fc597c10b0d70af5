package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// TestClose_KeepsAnEmptyWAL checks that closing the last connection keeps
// the -wal and -shm files for the next process, with the WAL checkpointed
// into the database and cut to zero bytes: bonsai.db copied alone holds
// everything written, and no old page images stay behind in the WAL.
func TestClose_KeepsAnEmptyWAL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "bonsai.db")
	CopyTemplateForTest(t, path)
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "/r", DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("the write left no WAL to check: %v, %v", fi, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + suffix); err != nil {
			t.Errorf("%s after close: %v, want it kept", suffix, err)
		}
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() != 0 {
		t.Errorf("-wal after close: %d bytes, want 0", fi.Size())
	}

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	alone := filepath.Join(t.TempDir(), "bonsai.db")
	if err := os.WriteFile(alone, b, 0o600); err != nil {
		t.Fatal(err)
	}
	copied, err := Open(ctx, alone)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	if p, err := copied.Project(ctx, "demo"); err != nil || p.Name != "Demo" {
		t.Errorf("project in the copied file: %+v, %v", p, err)
	}
}

// TestSettled checks that a database is settled while its WAL holds
// nothing (after reads) and not once a write is in it.
func TestSettled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	CopyTemplateForTest(t, path)
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Projects(ctx, store.ProjectFilter{}); err != nil {
		t.Fatal(err)
	}
	if !db.Settled() {
		t.Error("not settled after a read")
	}
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "/r", DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	if db.Settled() {
		t.Error("settled with a write in the WAL")
	}
}
