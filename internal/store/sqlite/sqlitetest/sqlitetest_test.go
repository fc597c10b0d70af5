package sqlitetest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
)

// TestOpen: a copy is a new board, private to its user, independent of the other copies; an existing file is opened as
// it is.
func TestOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	dbA, err := sqlitetest.Open(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer dbA.Close()
	if _, err := dbA.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "/src/demo", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	dbB, err := sqlitetest.Open(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer dbB.Close()
	if ps, err := dbB.Projects(ctx, store.ProjectFilter{}); err != nil || len(ps) != 0 {
		t.Errorf("the second copy holds %d projects (%v), want none", len(ps), err)
	}
	if fi, err := os.Stat(b); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the copy's mode is %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	dbA.Close()
	again, err := sqlitetest.Open(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if ps, err := again.Projects(ctx, store.ProjectFilter{}); err != nil || len(ps) != 1 {
		t.Errorf("reopened, the first copy holds %d projects (%v), want its one", len(ps), err)
	}
}
