package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
)

// Dispatch picks the runner of each project's engine setting: Default
// (Bonsai's own agent) for "bonsai", else the engine's.
type Dispatch struct {
	Default agentjob.AgentRunner
	Engines map[board.Engine]agentjob.AgentRunner
}

var (
	_ agentjob.AgentRunner      = (*Dispatch)(nil)
	_ agentjob.ProjectReadiness = (*Dispatch)(nil)
	_ agentjob.Charger          = (*Dispatch)(nil)
)

func (d *Dispatch) runner(p board.Project) agentjob.AgentRunner {
	if r, ok := d.Engines[p.Agent.Engine]; ok && p.Agent.Engine != board.EngineBonsai {
		return r
	}
	return d.Default
}

// RunAgent implements agentjob.AgentRunner.
func (d *Dispatch) RunAgent(ctx context.Context, job agentjob.Job) (agentjob.Outcome, error) {
	r := d.runner(job.Project)
	if r == nil {
		return agentjob.Outcome{Status: board.RunError, Error: "engine " + job.Project.Agent.Engine.String() + " is not available in this build"}, nil
	}
	return r.RunAgent(ctx, job)
}

// ReadyFor implements agentjob.ProjectReadiness: the project's runner
// is ready for the model (an engine's CLI is installed and recent enough).
func (d *Dispatch) ReadyFor(p board.Project, model string) error {
	r := d.runner(p)
	if r != d.Default && p.Agent.Sandbox != board.SandboxOff && p.Agent.Network == board.NetworkNone {
		// The CLI reaches its model gateway and board server on this
		// machine's loopback (in the proxy mode through the proxy, which
		// relays them): the none mode cuts both (docs/engines.md).
		return fmt.Errorf("the %s engine reaches its model and the board through the network, which the sandbox's none network mode cuts: "+
			"run 'bonsai project edit %s --network proxy' (the default: the proxy relays them) or '--network all'", p.Agent.Engine, p.Slug)
	}
	if rd, ok := r.(interface {
		ReadyLogin(board.Project, string) error
	}); ok && UsesLogin(p) {
		return rd.ReadyLogin(p, model)
	}
	if rd, ok := r.(agentjob.Readiness); ok {
		return rd.Ready(model)
	}
	return nil
}

// Spent implements agentjob.Charger: every runner writes usage into the
// ticket's transcript the same way.
func (d *Dispatch) Spent(sessionFile string, since time.Time) (board.Usage, error) {
	if c, ok := d.Default.(agentjob.Charger); ok {
		return c.Spent(sessionFile, since)
	}
	return board.Usage{}, nil
}
