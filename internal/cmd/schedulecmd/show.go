package schedulecmd

import (
	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

func newScheduleListCmd(a *cmdkit.App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list [project]",
		Aliases: []string{"ls"},
		Short:   "List schedules, with when each fires next",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			f := store.ScheduleFilter{}
			if len(args) == 1 {
				f.ProjectSlug = args[0]
			}
			ss, err := st.ScheduleList(cmd.Context(), f)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdkit.WriteJSON(a.Stdout, ss)
			}
			text.WriteSchedules(a.Stdout, ss, a.Now())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// scheduleDetail is `schedule show --json`.
type scheduleDetail struct {
	board.Schedule
	Firings []board.Firing `json:"firings"`
}

func newScheduleShowCmd(a *cmdkit.App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show <project> <name>",
		Short: "Show a schedule and its last firings",
		Args:  cmdkit.ExactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := a.OpenStore(ctx)
			if err != nil {
				return err
			}
			s, err := st.Schedule(ctx, args[0], args[1])
			if err != nil {
				return err
			}
			frs, err := st.Firings(ctx, args[0], args[1], 10)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdkit.WriteJSON(a.Stdout, scheduleDetail{Schedule: s, Firings: frs})
			}
			text.WriteSchedule(a.Stdout, s, frs, a.Now())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
