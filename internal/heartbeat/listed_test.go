package heartbeat_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
)

// TestListedProjects_ServesTheUpFrontListingOnce checks that the beat's
// store answers the first listing of every project with the one made up
// front, and every later or other listing from the store.
func TestListedProjects_ServesTheUpFrontListingOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlitetest.Open(ctx, filepath.Join(t.TempDir(), "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
