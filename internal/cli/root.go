package cli

import (
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/cmd/configcmd"
	"github.com/bonsai-run/bonsai/internal/cmd/credcmd"
	"github.com/bonsai-run/bonsai/internal/cmd/hookcmd"
	"github.com/bonsai-run/bonsai/internal/cmd/notifycmd"
	"github.com/bonsai-run/bonsai/internal/cmd/projectcmd"
	"github.com/bonsai-run/bonsai/internal/cmd/schedulecmd"
	"github.com/bonsai-run/bonsai/internal/cmd/servicecmd"
	"github.com/bonsai-run/bonsai/internal/cmd/statscmd"
	"github.com/bonsai-run/bonsai/internal/cmd/ticketcmd"
	"github.com/bonsai-run/bonsai/internal/cmd/toolcmd"
)

// oneShotGCPercent is the GC target of commands that run for milliseconds.
const oneShotGCPercent = 400

// longRunning reports whether cmd (or the top-level command it belongs to)
// serves, beats or runs agents: those keep Go's default GC target, so their
// memory stays close to what they hold.
func longRunning(cmd *cobra.Command) bool {
	for ; cmd.HasParent() && cmd.Parent().HasParent(); cmd = cmd.Parent() {
	}
	switch cmd.Name() {
	case "up", "serve", "heartbeat", "worker", "run", "mcp":
		return true
	}
	return false
}

// newRootCmd builds the bonsai command tree. Each subcommand registers here,
// one line each: cli's own commands take a, the families under
// internal/cmd the cmdkit.App and what they need from the wiring.
func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "bonsai",
		Short: "Self-hosted runtime for autonomous coding agents",
		Long: `Bonsai runs LLM coding agents on the tickets of your board.

People write tickets; a heartbeat picks the most urgent ticket of each project
and runs an agent on it in a git worktree. The agent talks to people through
comments on the ticket and moves it to VERIFICATION when every acceptance
criterion is met; people approve the work or send it back.

Data lives in $BONSAI_DATA_DIR (default ~/.bonsai).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Cobra checks required flags and flag groups after this hook; check
		// them first so that their errors count as usage errors.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := cmd.ValidateRequiredFlags(); err != nil {
				return err
			}
			if err := cmd.ValidateFlagGroups(); err != nil {
				return err
			}
			a.started = true
			a.oneShot = !longRunning(cmd)
			if a.oneShot && a.getenv("GOGC") == "" {
				// A one-shot command allocates a few MB and exits: one GC
				// cycle would be a tenth of its run time.
				debug.SetGCPercent(oneShotGCPercent)
			}
			return nil
		},
	}
	root.AddGroup(
		&cobra.Group{ID: "run", Title: "Run Bonsai:"},
		&cobra.Group{ID: "board", Title: "Board:"},
		&cobra.Group{ID: "agent", Title: "Agent:"},
		&cobra.Group{ID: "setup", Title: "Setup:"},
	)
	k := a.kit() // what the command families under internal/cmd get
	groups := []struct {
		id   string
		cmds []*cobra.Command
	}{
		{"run", []*cobra.Command{newUpCmd(a), newServeCmd(a), newHeartbeatCmd(a), newWorkerCmd(a)}},
		{"board", []*cobra.Command{projectcmd.NewCmd(k), ticketcmd.NewCmd(k, a.ticketWiring()), ticketcmd.NewCommentCmd(k), newStatusCmd(a), statscmd.NewCmd(k), schedulecmd.NewCmd(k, a.fireNow), hookcmd.NewCmd(k), newMCPCmd(a)}},
		{"agent", []*cobra.Command{newRunCmd(a), toolcmd.NewCmd(k, openToolWorkspace)}},
		{"setup", []*cobra.Command{newInitCmd(a), configcmd.NewCmd(k), credcmd.NewCmd(k), notifycmd.NewCmd(k, a.redactor), newStoreCmd(a), servicecmd.NewCmd(k), newDoctorCmd(a), newVersionCmd(a)}},
	}
	for _, g := range groups {
		for _, c := range g.cmds {
			c.GroupID = g.id
			root.AddCommand(c)
		}
	}
	return root
}
