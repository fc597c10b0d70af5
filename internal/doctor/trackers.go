package doctor

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TrackerProber asks a project's tracker the sync's own conditional list
// (trackersync.Syncer.Probe): what it saw, or why the token is refused.
type TrackerProber interface {
	Probe(ctx context.Context, p board.Project) (string, error)
}

// Trackers checks the tracker token of every active project with a
// tracker. prober is called once, at the first such project, so a board
// without trackers opens nothing; fix names the repair of a probe's
// error. A prober that cannot be made leaves the checks out.
func Trackers(ctx context.Context, projects []board.Project, prober func() (TrackerProber, error), fix func(error) string) []Check {
	var out []Check
	var pr TrackerProber
	for _, p := range projects {
		if !p.Active || p.Agent.Tracker == board.TrackerNone {
			continue
		}
		if pr == nil {
			var err error
			if pr, err = prober(); err != nil {
				return nil
			}
		}
		c := Check{Name: "tracker " + p.Slug + " (" + p.Agent.Tracker.String() + ")", Status: OK}
		if what, err := pr.Probe(ctx, p); err != nil {
			c.Status, c.Detail, c.Fix = Fail, err.Error(), fix(err)
		} else {
			c.Detail = what
		}
		out = append(out, c)
	}
	return out
}
