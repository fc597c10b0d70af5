package cli

import (
	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

func newScheduleListCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list [project]",
		Aliases: []string{"ls"},
		Short:   "List schedules, with when each fires next",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.openStore(cmd.Context())
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
				return writeJSON(a.stdout, ss)
			}
			text.WriteSchedules(a.stdout, ss, a.now())
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

func newScheduleShowCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show <project> <name>",
		Short: "Show a schedule and its last firings",
		Args:  exactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := a.openStore(ctx)
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
				return writeJSON(a.stdout, scheduleDetail{Schedule: s, Firings: frs})
			}
			text.WriteSchedule(a.stdout, s, frs, a.now())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
