package cli

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/doctor"
	"github.com/bonsai-run/bonsai/internal/trackersync"
)

// trackerChecks checks the tracker token of every active project with a
// tracker, with the sync's own conditional list (trackersync.Probe).
func (a *app) trackerChecks(ctx context.Context, cfg config.Config, projects []board.Project) []doctor.Check {
	return doctor.Trackers(ctx, projects, func() (doctor.TrackerProber, error) {
		st, err := a.openStore(ctx)
		if err != nil {
			return nil, err
		}
		return newTrackers(a, st, cfg, secrets(ctx, a, st).String, nil), nil
	}, trackersync.Fix)
}
