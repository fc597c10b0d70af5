package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/view"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

func newStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show projects, the queue the next heartbeat would pick, and recent runs",
		Long: `Show the heartbeat, the projects and their ticket counts, the queue the next
heartbeat would pick, the tickets waiting on you, the runs running and the
recent ones, and today's spend.

On a board on Postgres, which several machines share (docs/postgres.md),
it also lists the workers and the leases: every worker whose beats
recorded it in the last 7 days, with what it runs, its last beat (or that
it stopped, or seems gone) and the tickets it holds, and every lease.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := loadStatus(cmd, a)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, v)
			}
			return text.WriteStatus(a.stdout, v, a.now())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func loadStatus(cmd *cobra.Command, a *app) (view.Status, error) {
	cfg, err := a.config()
	if err != nil {
		return view.Status{}, err
	}
	s, err := a.openStore(cmd.Context())
	if err != nil {
		return view.Status{}, err
	}
	st := heartbeat.ReadState(a.dir.Path("heartbeat.json"))
	hb := text.NewHeartbeatStatus(st, a.now())
	// On a board several machines share, the workers and their leases.
	u, err := a.storeURL()
	if err != nil {
		return view.Status{}, err
	}
	var shared view.WorkerSource
	if u != "" {
		shared = s
	}
	return view.LoadStatus(cmd.Context(), s, view.StatusOptions{
		Heartbeat: hb,
		Facts:     hb.Facts,
		Now:       a.now(),
		Models: func(ps []board.Project) []view.ModelStatus {
			return modelStatuses(a.presenceEnv(), a.keySource, cfg, ps)
		},
		Sandbox: func() error { return sandboxUsable(func() error { return sandboxKnown(st) }) },
		Shared:  shared, LeaseTTL: heartbeat.DefaultLeaseTTL, Interval: workerInterval(a),
	})
}

// loadHeartbeat reads the heartbeat's state in the data directory d for
// `bonsai status` and the web UI.
func loadHeartbeat(d config.Dir, now time.Time) text.HeartbeatStatus {
	return text.NewHeartbeatStatus(heartbeat.ReadState(d.Path("heartbeat.json")), now)
}

// sandboxKnown says whether the sandbox can start as far as status can
// tell without starting it (3 ms a call): its program is installed, and
// the last beat that tried it did not find it failing.
func sandboxKnown(st *heartbeat.State) error {
	if err := sandboxInstalled(); err != nil {
		return err
	}
	return st.SandboxError()
}

// agentBlockers is why the agents of projects ps cannot run, as every
// web page's banner shows it (view.Blockers), and what heartbeat.json
// says stops them.
func agentBlockers(a *app, ps []board.Project) ([]view.Blocker, view.AgentFacts) {
	cfg, err := a.config()
	if err != nil {
		cfg = config.Default()
	}
	st := heartbeat.ReadState(a.dir.Path("heartbeat.json"))
	facts := text.NewHeartbeatStatus(st, a.now()).Facts()
	models := modelStatuses(a.presenceEnv(), a.keySource, cfg, ps)
	sums := view.SandboxSummaries(ps, func() error { return sandboxUsable(func() error { return sandboxKnown(st) }) })
	return view.Blockers(models, sums, facts), facts
}
