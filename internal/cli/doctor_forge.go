package cli

import (
	"context"
	"errors"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/doctor"
	"github.com/bonsai-run/bonsai/internal/forge"
)

// forgeProbeTimeout bounds one forge's token probe.
const forgeProbeTimeout = 10 * time.Second

// forgeChecks checks the token of every active project that lands
// through pull requests (issue 27, item 6): the forge accepts it and it
// has the scopes docs/forges.md lists, asked without a change and
// without a model call (forge.CheckToken), once per repository.
func (a *app) forgeChecks(ctx context.Context, cfg config.Config, projects []board.Project) []doctor.Check {
	if len(projects) == 0 {
		return nil
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return nil
	}
	fs := newForges(a, st, cfg, secrets(ctx, a, st).String, nil)
	seen := map[string]bool{}
	var out []doctor.Check
	for _, p := range projects {
		if !fs.UsesPRs(p) {
			continue
		}
		probe := doctor.ForgeProbe{Name: "forge " + p.Slug, Where: p.Repo}
		c, err := fs.Client(p)
		if err != nil {
			probe.Err, probe.ErrFix = err, fixOf(err)
			out = append(out, doctor.ForgeToken(probe))
			continue
		}
		r := c.Repo()
		key := r.API + " " + r.Path()
		if seen[key] {
			continue
		}
		seen[key] = true
		probe.Where, probe.Need = string(r.Kind)+" "+r.Path()+" on "+r.Host, forge.NeededScopes(r.Kind)
		pctx, cancel := context.WithTimeout(ctx, forgeProbeTimeout)
		rep, err := forge.CheckToken(pctx, c)
		cancel()
		probe.Scopes, probe.Missing, probe.Unchecked, probe.Requests = rep.Scopes, rep.Missing, rep.Unchecked, rep.Requests
		if err != nil {
			probe.Err, probe.ErrFix = err, fixOf(err)
			r := forge.ReasonOf(err)
			probe.Transient = r == forge.Unavailable || r == forge.RateLimited
		}
		out = append(out, doctor.ForgeToken(probe))
	}
	return out
}

// fixOf is a forge error's fix, "" for other errors.
func fixOf(err error) string {
	var fe *forge.Error
	if errors.As(err, &fe) {
		return fe.Fix()
	}
	return ""
}
