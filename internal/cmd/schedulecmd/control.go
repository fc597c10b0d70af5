package schedulecmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/schedule"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

func newSchedulePauseCmd(a *cmdkit.App, pause bool) *cobra.Command {
	use, short := "pause", "Pause a schedule: it does not fire until resumed"
	if !pause {
		use, short = "resume", "Resume a paused schedule from now: missed windows fire once at most"
	}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   use + " <project> <name>",
		Short: short,
		Args:  cmdkit.ExactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := a.OpenStore(ctx)
			if err != nil {
				return err
			}
			s, err := setPaused(ctx, st, args[0], args[1], pause, a.Now())
			if err != nil {
				return err
			}
			if asJSON {
				return cmdkit.WriteJSON(a.Stdout, s)
			}
			fmt.Fprintf(a.Stdout, "Schedule %s/%s: %s\n", s.ProjectSlug, termsafe.Line(s.Name), termsafe.Line(text.NextLine(s, a.Now())))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// setPaused pauses or resumes a schedule; resuming computes its next
// firing from now, so the windows it was paused for do not fire.
func setPaused(ctx context.Context, st store.Store, project, name string, pause bool, now time.Time) (board.Schedule, error) {
	if pause {
		return st.UpdateSchedule(ctx, project, name, schedule.Pause(), board.Human)
	}
	s, err := st.Schedule(ctx, project, name)
	if err != nil {
		return s, err
	}
	return st.UpdateSchedule(ctx, project, name, schedule.Resume(s, now), board.Human)
}

func newScheduleRmCmd(a *cmdkit.App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "rm <project> <name>",
		Short: "Remove a schedule and its firings (the tickets it made stay)",
		Args:  cmdkit.ExactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			if err := st.DeleteSchedule(cmd.Context(), args[0], args[1], board.Human); err != nil {
				return err
			}
			if asJSON {
				return cmdkit.WriteJSON(a.Stdout, map[string]string{"project": args[0], "removed": args[1]})
			}
			fmt.Fprintf(a.Stdout, "Removed schedule %s/%s\n", args[0], args[1])
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newScheduleFireCmd(a *cmdkit.App, fire Firer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "fire <project> <name>",
		Short: "Fire a schedule now: overlap rule, pre-check, ticket (the next beat runs the agent)",
		Long: `Fire a schedule now, as a beat would when it is due: the overlap rule and
the pre-check apply, and its ticket is created for the next heartbeat to
pick. Its next regular firing stays as it was.`,
		Args: cmdkit.ExactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScheduleFire(cmd.Context(), a, fire, args[0], args[1], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func runScheduleFire(ctx context.Context, a *cmdkit.App, fire Firer, project, name string, asJSON bool) error {
	rep, err := fire(ctx, project, name)
	if err != nil {
		return err
	}
	if asJSON {
		return cmdkit.WriteJSON(a.Stdout, rep)
	}
	fmt.Fprintln(a.Stdout, text.FireLine(rep))
	if rep.Outcome == board.FiringFailed {
		return fmt.Errorf("the pre-check failed: %s", rep.Detail)
	}
	return nil
}
