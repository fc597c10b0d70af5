package cli

import (
	"context"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/cmd/projectcmd"
	"github.com/bonsai-run/bonsai/internal/cmd/ticketcmd"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
)

// kit is what the command families of internal/cmd take from a: its
// streams and environment, and its data directory, config and store
// opened on first use.
func (a *app) kit() *cmdkit.App {
	if a.shared == nil {
		a.shared = &cmdkit.App{
			Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr,
			Env: a.env, Getenv: a.getenv, Now: func() time.Time { return a.now() },
			DataDir: a.dataDir, Config: a.config, ForgetConfig: a.creds.ForgetConfig,
			OpenStore: a.openStore, StoreURL: a.storeURL, Keys: a.keys,
		}
	}
	return a.shared
}

// ticketWiring is what the ticket commands take from the wiring: landing
// an approval, Run now, and what keeps agents from a project.
func (a *app) ticketWiring() ticketcmd.Wiring {
	return ticketcmd.Wiring{
		Approve: a.approve,
		RunNow: func(ctx context.Context, d config.Dir, s store.Store, ref board.Ref) (string, error) {
			return startRunNow(ctx, a, d, s, ref)
		},
		Blockers: func(p board.Project) ([]view.Blocker, view.AgentFacts) { return agentBlockers(a, []board.Project{p}) },
		RunVariants: func(ctx context.Context, d config.Dir, s store.Store, ref board.Ref, specs []board.VariantSpec) (string, error) {
			return runVariants(ctx, a, d, s, ref, specs)
		},
		ReturnVariant: a.returnVariant,
	}
}

// The helpers of the families that the wiring uses too.
var (
	writeJSON     = cmdkit.WriteJSON
	configFix     = cmdkit.ConfigFix
	modelProblem  = cmdkit.ModelProblem
	projectBranch = projectcmd.Branch
)
