package sqlite

import (
	"reflect"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// TestProjectsBrief_AgreesWithProjects checks that ProjectsBrief lists the
// projects Projects lists, in the same order, with their slug, name, active
// flag and model, archived ones only when asked.
func TestProjectsBrief_AgreesWithProjects(t *testing.T) {
	ctx := t.Context()
	db := openTest(t)
	for _, p := range []board.Project{
		{Slug: "zeta", Name: "Zeta", Repo: "/r", DefaultBranch: "main", Agent: board.AgentSettings{Model: "anthropic/claude-x"}},
		{Slug: "alpha", Name: "Alpha", Repo: "/r", DefaultBranch: "main"},
		{Slug: "old", Name: "Old", Repo: "/r", DefaultBranch: "main", Agent: board.AgentSettings{Model: "openai/gpt-x"}},
	} {
		if _, err := db.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ArchiveProject(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []store.ProjectFilter{{}, {IncludeArchived: true}} {
		full, err := db.Projects(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		brief, err := db.ProjectsBrief(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var want []board.Project
		for _, p := range full {
			want = append(want, board.Project{Slug: p.Slug, Name: p.Name, Active: p.Active, Agent: board.AgentSettings{Model: p.Agent.Model}})
		}
		if !reflect.DeepEqual(brief, want) {
			t.Errorf("ProjectsBrief(%+v) = %+v\nwant %+v", f, brief, want)
		}
		if n := map[bool]int{false: 2, true: 3}[f.IncludeArchived]; len(brief) != n {
			t.Errorf("ProjectsBrief(%+v) listed %d projects, want %d", f, len(brief), n)
		}
	}
}
