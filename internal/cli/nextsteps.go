package cli

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
)

// nextSteps lists what stands between this board and agents at work
// (view.NextSteps): a project to add, a key to store for the model agents
// would use (config.json's default one while there is no project). With
// allModels false (the web banner, whose blockers already name a missing
// key once a project needs it) the key is a step only while there is no
// project; with it true (`bonsai up`), for every active project's model.
func (a *app) nextSteps(ctx context.Context, s store.Store, allModels bool) []view.Step {
	ps, err := s.Projects(ctx, store.ProjectFilter{})
	if err != nil {
		return nil
	}
	var active []board.Project
	for _, p := range ps {
		if p.Active {
			active = append(active, p)
		}
	}
	cfg, err := config.Load(a.dir.ConfigFile())
	if err != nil {
		cfg = config.Default()
	}
	var models []view.ModelStatus
	switch {
	case len(active) == 0:
		models = modelStatuses(a.presenceEnv(), a.keySource, cfg, []board.Project{{Active: true}})
	case allModels:
		models = modelStatuses(a.presenceEnv(), a.keySource, cfg, active)
	}
	return view.NextSteps(len(active), models)
}
