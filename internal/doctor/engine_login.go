package doctor

import (
	"github.com/bonsai-run/bonsai/internal/board"
)

// EngineLogins checks each active project whose engine CLI runs with the
// person's own login (--engine-auth login): check returns the credential
// file it found, or why the project's runs are refused (no sandbox, no
// login, naming the command that logs in).
func EngineLogins(projects []board.Project, check func(board.Project) (string, error)) []Check {
	var out []Check
	for _, p := range projects {
		if !p.Active || p.Agent.Engine == board.EngineBonsai || p.Agent.EngineAuth != board.EngineAuthLogin {
			continue
		}
		c := Check{Name: "engine login " + p.Slug}
		file, err := check(p)
		if err != nil {
			c.Status, c.Detail, c.Fix = Fail, err.Error(), "log the CLI in, or use Bonsai's key: bonsai project edit "+p.Slug+" --engine-auth gateway"
		} else {
			c.Status, c.Detail = OK, p.Agent.Engine.String()+" uses your login "+file+
				": the agent's commands run beside it and can read it and send it to the provider's hosts (docs/engines.md)"
		}
		out = append(out, c)
	}
	return out
}
