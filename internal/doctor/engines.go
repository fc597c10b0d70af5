package doctor

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// EngineCLIs finds the vendors' agent CLIs the engines run.
type EngineCLIs interface {
	// Runs reports whether engine e runs a vendor's CLI.
	Runs(e board.Engine) bool
	// Locate finds e's CLI as the heartbeat finds it: on the runtime's
	// PATH and of a version the engine reads.
	Locate(e board.Engine) (string, error)
	// Install says how to install e's CLI.
	Install(e board.Engine) string
}

// Engines checks the CLI of every engine an active project of projects
// uses (clis), and, when shown is not nil, that the sandbox of a project
// using it can show it (shown: nil when it can).
func Engines(ctx context.Context, projects []board.Project, clis EngineCLIs, shown func(board.Project) error) []Check {
	users := map[board.Engine][]string{}
	sandboxed := map[board.Engine]board.Project{}
	for _, p := range projects {
		if clis.Runs(p.Agent.Engine) {
			users[p.Agent.Engine] = append(users[p.Agent.Engine], p.Slug)
			if p.Agent.Sandbox != board.SandboxOff {
				sandboxed[p.Agent.Engine] = p
			}
		}
	}
	names := make([]board.Engine, 0, len(users))
	for n := range users {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Check
	for _, n := range names {
		c := Check{Name: "engine " + string(n)}
		bin, err := clis.Locate(n)
		if err != nil {
			c.Status, c.Detail, c.Fix = Fail, fmt.Sprintf("%v; used by %s", err, strings.Join(users[n], ", ")), clis.Install(n)
			out = append(out, c)
			continue
		}
		if p, ok := sandboxed[n]; ok && shown != nil {
			if err := shown(p); err != nil {
				c.Status, c.Detail, c.Fix = Fail, err.Error(), "install it in a directory of its own: "+clis.Install(n)
				out = append(out, c)
				continue
			}
		}
		v, _ := Version(ctx, bin)
		c.Status, c.Detail = OK, fmt.Sprintf("%s (%s); used by %s", v, bin, strings.Join(users[n], ", "))
		out = append(out, c)
	}
	return out
}
