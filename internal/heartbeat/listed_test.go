package heartbeat_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
)

// openBoard opens a new SQLite board, closed when the test ends.
func openBoard(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlitetest.Open(context.Background(), filepath.Join(t.TempDir(), "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestListedProjects_ServesTheUpFrontListingOnce checks that the beat's
// store answers the first listing of every project with the one made up
// front, and every later or other listing from the store.
func TestListedProjects_ServesTheUpFrontListingOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openBoard(t)
	add := func(slug string) {
		t.Helper()
		if _, err := db.CreateProject(ctx, board.Project{Slug: slug, Name: slug, Repo: "https://u:pw@example.com/" + slug, DefaultBranch: "main", Active: true}); err != nil {
			t.Fatal(err)
		}
	}
	add("one")
	listed := heartbeat.ListProjects(ctx, db)
	if len(listed.All()) != 1 {
		t.Fatalf("up-front listing: %v, want one project", listed.All())
	}
	add("two")

	// Another filter goes to the store, and leaves the listing unserved.
	if ps, err := listed.Projects(ctx, store.ProjectFilter{}); err != nil || len(ps) != 2 {
		t.Errorf("active projects: %d, %v; want 2", len(ps), err)
	}
	all := store.ProjectFilter{IncludeArchived: true}
	for i, want := range []int{1, 2, 2} {
		ps, err := listed.Projects(ctx, all)
		if err != nil || len(ps) != want {
			t.Errorf("listing %d of all projects: %d projects, %v; want %d", i+1, len(ps), err, want)
		}
	}
}

// TestListedProjects_CheckActive checks that a beat limited to an
// archived project is refused with the reason, and that a beat of every
// project, or of an active one, is not.
func TestListedProjects_CheckActive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openBoard(t)
	for _, slug := range []string{"live", "old"} {
		if _, err := db.CreateProject(ctx, board.Project{Slug: slug, Name: slug, Repo: "https://example.com/" + slug, DefaultBranch: "main", Active: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ArchiveProject(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	listed := heartbeat.ListProjects(ctx, db)
	for _, slug := range []string{"", "live"} {
		if err := listed.CheckActive(ctx, slug); err != nil {
			t.Errorf("CheckActive(%q) = %v", slug, err)
		}
	}
	if err := listed.CheckActive(ctx, "old"); board.ErrorCode(err) != board.EREFUSED || !strings.Contains(err.Error(), "archived") {
		t.Errorf("archived project: %v, want it refused as archived", err)
	}
	if err := listed.CheckActive(ctx, "none"); board.ErrorCode(err) != board.ENOTFOUND {
		t.Errorf("unknown project: %v, want not found", err)
	}
}
