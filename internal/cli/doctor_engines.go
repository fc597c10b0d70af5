package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/doctor"
	"github.com/bonsai-run/bonsai/internal/engine"
)

// engineCLIs are the engines that run a vendor's CLI, by the name
// projects give them.
var engineCLIs = map[board.Engine]engine.Engine{
	board.EngineClaudeCode: engine.Claude{},
	board.EngineOpenCode:   engine.OpenCode{},
	board.EngineCodex:      engine.Codex{},
}

// engineChecks checks the CLI of every engine an active project uses:
// on the runtime's PATH (lookPath) and of a version the engine reads, as
// the heartbeat finds it (engine.Locator), and, when shown is not nil,
// that the sandbox of a project using it can show it (shown: nil when it
// can).
func engineChecks(ctx context.Context, projects []board.Project, lookPath func(string) (string, error), shown func(board.Project) error) []doctor.Check {
	users := map[board.Engine][]string{}
	sandboxed := map[board.Engine]board.Project{}
	for _, p := range projects {
		if _, ok := engineCLIs[p.Agent.Engine]; ok {
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
	loc := engine.NewLocator(lookPath)
	var out []doctor.Check
	for _, n := range names {
		e := engineCLIs[n]
		c := doctor.Check{Name: "engine " + string(n)}
		bin, err := loc.Locate(e)
		if err != nil {
			c.Status, c.Detail, c.Fix = doctor.Fail, fmt.Sprintf("%v; used by %s", err, strings.Join(users[n], ", ")), e.Install()
			out = append(out, c)
			continue
		}
		if p, ok := sandboxed[n]; ok && shown != nil {
			if err := shown(p); err != nil {
				c.Status, c.Detail, c.Fix = doctor.Fail, err.Error(), "install it in a directory of its own: "+e.Install()
				out = append(out, c)
				continue
			}
		}
		v, _ := doctor.Version(ctx, bin)
		c.Status, c.Detail = doctor.OK, fmt.Sprintf("%s (%s); used by %s", v, bin, strings.Join(users[n], ", "))
		out = append(out, c)
	}
	return out
}
