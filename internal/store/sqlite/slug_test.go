package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestCreateProject_SlugStartingWithDash checks that a new project may not
// take a slug starting with "-", while one stored before the rule still
// loads, changes and takes tickets.
func TestCreateProject_SlugStartingWithDash(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	_, err := db.CreateProject(ctx, board.Project{Slug: "-x", Name: "x", Repo: "/r", DefaultBranch: "main"})
	if board.ErrorCode(err) != board.EINVALID || !strings.Contains(err.Error(), "starts with -") {
		t.Fatalf("CreateProject(-x) = %v, want invalid: starts with -", err)
	}
	// A project stored by an older bonsai, which allowed the slug.
	if _, err := db.CreateProject(ctx, board.Project{Slug: "old", Name: "old", Repo: "/r", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.Exec(`UPDATE projects SET slug = '-old' WHERE slug = 'old'`); err != nil {
		t.Fatal(err)
	}
	name := "renamed"
	if _, err := db.UpdateProject(ctx, "-old", board.ProjectPatch{Name: &name}); err != nil {
		t.Fatalf("UpdateProject(-old) = %v", err)
	}
	tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "-old", Title: "still works", Priority: 2}, board.Human)
	if err != nil {
		t.Fatalf("CreateTicket(-old) = %v", err)
	}
	ref, err := board.ParseRef(tk.Ref().String())
	if err != nil {
		t.Fatalf("ParseRef(%s) = %v", tk.Ref(), err)
	}
	if _, err := db.Ticket(ctx, ref); err != nil {
		t.Fatalf("Ticket(%s) = %v", ref, err)
	}
}
