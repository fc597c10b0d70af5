// Package statscmd holds `bonsai stats`: what the agents delivered and
// at what cost, from the board's stored facts (internal/insights), as
// text, JSON or CSV.
package statscmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/insights"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// NewCmd returns `bonsai stats`.
func NewCmd(a *cmdkit.App) *cobra.Command {
	var project, since, by string
	var asJSON, asCSV bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Show what the agents delivered and at what cost: landed tickets, one-shot rate, spend",
		Long: `Show what the agents delivered and at what cost, from the board's stored facts:
the tickets landed, the one-shot rate (landed without being sent back), the
returns, runs, tokens, dollars and questions per landed ticket, the time
from a ticket's first run to its landing, the spend per day against the
daily budgets, the runs that failed or were stopped and why, and the
costliest tickets.

--since takes an age (30d, 2w, 12h), a date (2026-03-01) or all. --by groups
the landed tickets by the model or engine their newest run ran with (the
project's current setting for runs recorded before runs kept theirs), by
project, or by the week they landed in. --json prints every figure; --csv prints one row per group.`,
		Example: `  bonsai stats
  bonsai stats --project web --since 2w --by engine
  bonsai stats --since all --by week --csv > weeks.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asCSV {
				return board.Errorf(board.EINVALID, "--json and --csv each choose the output; give one")
			}
			from, err := insights.ParseSince(since, a.Now())
			if err != nil {
				return err
			}
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			r, err := insights.Load(cmd.Context(), s, insights.Options{Project: project, Since: from, By: by})
			if err != nil {
				return err
			}
			switch {
			case asJSON:
				return cmdkit.WriteJSON(a.Stdout, r)
			case asCSV:
				return insights.WriteCSV(a.Stdout, r)
			}
			return text.WriteStats(a.Stdout, r, a.Now())
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "only this project (its slug)")
	cmd.Flags().StringVar(&since, "since", "30d", "start of the period: an age (30d, 2w, 12h), a date (2026-03-01) or all")
	cmd.Flags().StringVar(&by, "by", insights.ByModel, "group by "+strings.Join(insights.Groupings, ", "))
	cmd.Flags().BoolVar(&asJSON, "json", false, "print every figure as JSON")
	cmd.Flags().BoolVar(&asCSV, "csv", false, "print one CSV row per group, then the total")
	return cmd
}
