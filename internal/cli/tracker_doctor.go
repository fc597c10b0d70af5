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
	var out []doctor.Check
	var sy interface {
		Probe(ctx context.Context, p board.Project) (string, error)
	}
	for _, p := range projects {
		if !p.Active || p.Agent.Tracker == board.TrackerNone {
			continue
		}
		if sy == nil {
			st, err := a.openStore(ctx)
			if err != nil {
				return nil
			}
			sy = newTrackers(a, st, cfg, secrets(ctx, a, st).String, nil)
		}
		c := doctor.Check{Name: "tracker " + p.Slug + " (" + p.Agent.Tracker.String() + ")", Status: doctor.OK}
		what, err := sy.Probe(ctx, p)
		if err != nil {
			c.Status, c.Detail, c.Fix = doctor.Fail, err.Error(), trackersync.Fix(err)
		} else {
			c.Detail = what
		}
		out = append(out, c)
	}
	return out
}
