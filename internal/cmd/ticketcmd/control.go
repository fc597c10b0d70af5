package ticketcmd

import (
	"context"
	"fmt"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/store"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// stopWait bounds how long `ticket stop` waits to see the run stop; the
// beat polls every half second, so it normally takes one.
const stopWait = 5 * time.Second

func newTicketStopCmd(a *cmdkit.App) *cobra.Command {
	return &cobra.Command{
		Use:   "stop <project#n>",
		Short: "Stop the agent running on a ticket",
		Long: `Stop the agent running on a ticket: the beat running it (another process)
sees the request within a second, kills the command the agent runs, and
records the run as stopped, its transcript kept. The ticket stays where it
is; the next beat resumes it unless you move or block it.`,
		Example: `  bonsai ticket stop demo#3`,
		Args:    cmdkit.ExactArgs("<project#n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := board.ParseRef(args[0])
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			s, err := a.OpenStore(ctx)
			if err != nil {
				return err
			}
			r, err := s.RequestStop(ctx, ref, a.Author())
			if err != nil {
				return err
			}
			deadline := time.Now().Add(stopWait)
			for time.Now().Before(deadline) {
				c, err := s.RunControl(ctx, r.ID)
				if err != nil {
					return err
				}
				if c.Status != board.RunRunning {
					fmt.Fprintf(a.Stdout, "%s: run %s %s.\n", ref, r.ID, c.Status)
					return nil
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(100 * time.Millisecond):
				}
			}
			fmt.Fprintf(a.Stdout, "%s: stop requested for run %s; the beat running it (%s) has not stopped it yet. If that process is gone, the next beat marks the run interrupted.\n", ref, r.ID, r.WorkerID)
			return nil
		},
	}
}

func newTicketRunCmd(a *cmdkit.App, runNow func(context.Context, config.Dir, store.Store, board.Ref) (string, error),
	runVariants func(context.Context, config.Dir, store.Store, board.Ref, []board.VariantSpec) (string, error)) *cobra.Command {
	var variants string
	cmd := &cobra.Command{
		Use:   "run <project#n>",
		Short: "Run an agent on a ticket now, instead of waiting for the next beat",
		Long: `Start a beat for exactly this ticket now, in the background: the same
'bonsai heartbeat --ticket <project#n>' the web UI's Run now button starts.
The board's rules hold (a blocked ticket, one in VERIFICATION or DONE, or a
BACKLOG ticket of a project that does not take its backlog is refused, with
why), and so does the heartbeat lock: while another beat runs, nothing
starts and the command says so.

--variants runs the ticket N ways at once (best of N, 2 to 5), one
engine:model each, in separate worktrees and branches, with the ticket's
budget split between them; each stops at VERIFICATION, and 'bonsai ticket
variants' compares them (docs/heartbeat.md, "Variants").`,
		Example: `  bonsai ticket run demo#3
  bonsai ticket run demo#3 --variants bonsai:anthropic/claude-sonnet-4-5,claude-code:anthropic/claude-opus-4-1,codex:openai/gpt-5`,
		Args: cmdkit.ExactArgs("<project#n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := board.ParseRef(args[0])
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			d, err := a.DataDir()
			if err != nil {
				return err
			}
			s, err := a.OpenStore(ctx)
			if err != nil {
				return err
			}
			if _, err := s.Ticket(ctx, ref); err != nil {
				return err
			}
			var msg string
			if cmd.Flags().Changed("variants") {
				specs, perr := board.ParseVariantSpecs(variants)
				if perr != nil {
					return perr
				}
				if msg, err = runVariants(ctx, d, s, ref, specs); err != nil {
					return err
				}
			} else if msg, err = runNow(ctx, d, s, ref); err != nil {
				return err
			}
			fmt.Fprintln(a.Stdout, termsafe.Text(msg))
			return nil
		},
	}
	cmd.Flags().StringVar(&variants, "variants", "", "run the ticket N ways at once: engine:model,... (2 to 5)")
	return cmd
}
