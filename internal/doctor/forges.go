package doctor

import (
	"context"
	"errors"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
)

// forgeProbeTimeout bounds one forge's token probe.
const forgeProbeTimeout = 10 * time.Second

// Forges gives the forge client of each project that lands through pull
// requests (forgesync.Forges).
type Forges interface {
	UsesPRs(p board.Project) bool
	Client(p board.Project) (forge.Client, error)
}

// ForgeTokens checks the token of every active project of projects that
// lands through pull requests (issue 27, item 6): the forge accepts it
// and it has the scopes docs/forges.md lists, asked without a change and
// without a model call (forge.CheckToken), once per repository.
func ForgeTokens(ctx context.Context, projects []board.Project, fs Forges) []Check {
	seen := map[string]bool{}
	var out []Check
	for _, p := range projects {
		if !fs.UsesPRs(p) {
			continue
		}
		probe := ForgeProbe{Name: "forge " + p.Slug, Where: p.Repo}
		c, err := fs.Client(p)
		if err != nil {
			probe.Err, probe.ErrFix = err, fixOf(err)
			out = append(out, ForgeToken(probe))
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
		out = append(out, ForgeToken(probe))
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
