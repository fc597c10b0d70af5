package cli

import (
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/view"
	"github.com/bonsai-run/bonsai/internal/view/text"
	"github.com/spf13/cobra"
)

func newStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show projects, the queue the next heartbeat would pick, and recent runs",
		Args:  cobra.NoArgs,
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
	return view.LoadStatus(cmd.Context(), s, view.StatusOptions{
		Heartbeat: loadHeartbeat(a.dir, a.now()),
		Now:       a.now(),
		Models: func(ps []board.Project) []view.ModelStatus {
			return modelStatuses(a.presenceEnv(), a.keySource, cfg, ps)
		},
		Sandbox: func() error { return sandboxUsable(sandboxAvailable) },
	})
}

// loadHeartbeat reads the heartbeat's state in the data directory d for
// `bonsai status` and the web UI.
func loadHeartbeat(d config.Dir, now time.Time) text.HeartbeatStatus {
	return text.NewHeartbeatStatus(heartbeat.ReadState(d.Path("heartbeat.json")), now)
}
