package insights

import (
	"context"
	"slices"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// Source is what Load reads: the facts and the projects' settings.
type Source interface {
	StatsFacts(ctx context.Context, f store.StatsFilter) (store.StatsFacts, error)
	Projects(ctx context.Context, f store.ProjectFilter) ([]board.Project, error)
}

// Load reads the facts o covers from src and builds their report. The
// budgets and groups come from the projects in scope: o.Project's only,
// else every project, archived ones included.
func Load(ctx context.Context, src Source, o Options) (Report, error) {
	if err := CheckBy(o.By); err != nil {
		return Report{}, err
	}
	facts, err := src.StatsFacts(ctx, store.StatsFilter{ProjectSlug: o.Project, Since: o.Since})
	if err != nil {
		return Report{}, err
	}
	ps, err := src.Projects(ctx, store.ProjectFilter{IncludeArchived: true})
	if err != nil {
		return Report{}, err
	}
	if o.Project != "" {
		ps = slices.DeleteFunc(ps, func(p board.Project) bool { return p.Slug != o.Project })
	}
	return Build(facts, ps, o)
}
