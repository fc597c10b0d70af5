package cli

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/schedule"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/termsafe"
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
			writeSchedules(a.stdout, ss, a.now())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// writeSchedules prints the schedules as a table.
func writeSchedules(w io.Writer, ss []board.Schedule, now time.Time) {
	if len(ss) == 0 {
		fmt.Fprintln(w, "No schedules. Add one with: bonsai schedule add <project> <name> --cron \"0 9 * * 1\" --title \"...\"")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCHEDULE\tWHEN\tNEXT\tLAST TICKET\tSTATUS")
	for _, s := range ss {
		last := "-"
		if s.LastTicket != 0 {
			last = fmt.Sprintf("%s#%d %s", s.ProjectSlug, s.LastTicket, s.LastTicketState)
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\n", s.ProjectSlug, termsafe.Line(s.Name), when(s), nextTime(s), last, termsafe.Line(status(s)))
	}
	tw.Flush()
}

// when is the schedule's timing in words.
func when(s board.Schedule) string {
	return termsafe.Line(fmt.Sprintf("%s %s (%s)", s.Kind, s.Expr, s.TimeZone))
}

// nextTime is the next firing in the schedule's zone, "-" for none.
func nextTime(s board.Schedule) string {
	if s.NextFire.IsZero() {
		return "-"
	}
	return inZone(s.NextFire, s.TimeZone)
}

func inZone(t time.Time, zone string) string {
	if loc, err := schedule.LoadZone(zone); err == nil {
		t = t.In(loc)
	}
	return t.Format("2006-01-02 15:04 MST")
}

// status is paused, failing or active.
func status(s board.Schedule) string {
	switch {
	case s.Paused:
		return "paused"
	case s.Failures > 0:
		return fmt.Sprintf("pre-check failing (%d)", s.Failures)
	case s.NextFire.IsZero():
		return "done"
	}
	return "active"
}

// nextLine says when s fires next.
func nextLine(s board.Schedule, now time.Time) string {
	switch {
	case s.Paused:
		return "paused"
	case s.NextFire.IsZero():
		return "it will not fire again"
	}
	return fmt.Sprintf("next firing %s (in %s)", nextTime(s), until(s.NextFire.Sub(now)))
}

// until writes a wait compactly: "3d 22h", "21h 19m", "5m", "less than a
// minute".
func until(d time.Duration) string {
	d = d.Round(time.Minute)
	days, hours, mins := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case d < time.Minute:
		return "less than a minute"
	case days > 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case hours > 0 && mins > 0:
		return fmt.Sprintf("%dh %dm", hours, mins)
	case hours > 0:
		return fmt.Sprintf("%dh", hours)
	}
	return fmt.Sprintf("%dm", mins)
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
			writeSchedule(a.stdout, s, frs, a.now())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func writeSchedule(w io.Writer, s board.Schedule, frs []board.Firing, now time.Time) {
	fmt.Fprintf(w, "%s/%s: %s\n", s.ProjectSlug, termsafe.Line(s.Name), when(s))
	fmt.Fprintf(w, "Status: %s; %s\n", termsafe.Line(status(s)), termsafe.Line(nextLine(s, now)))
	fmt.Fprintf(w, "Ticket: %q, %s, priority %s, overlap %s\n", s.Title, s.StartState, board.PriorityName(s.Priority), s.Overlap)
	if s.PreCheck != "" {
		fmt.Fprintf(w, "Pre-check: %s\n", termsafe.Line(s.PreCheck))
	}
	if s.LastError != "" {
		fmt.Fprintf(w, "Last error: %s\n", termsafe.Line(s.LastError))
	}
	if len(frs) == 0 {
		fmt.Fprintln(w, "No firings yet.")
		return
	}
	fmt.Fprintln(w, "Last firings:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range frs {
		what := string(f.Outcome)
		if f.Ticket != 0 {
			what += fmt.Sprintf(" %s#%d", s.ProjectSlug, f.Ticket)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", inZone(f.FiredAt, s.TimeZone), what, termsafe.Line(f.Detail))
	}
	tw.Flush()
}
