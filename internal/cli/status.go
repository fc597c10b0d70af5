package cli

import (
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
	"github.com/spf13/cobra"
)

// recentRunsShown is how many runs `bonsai status` lists.
const recentRunsShown = 10

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
			return printStatus(a, v)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func loadStatus(cmd *cobra.Command, a *app) (view.Status, error) {
	ctx := cmd.Context()
	v := view.Status{Projects: []view.ProjectSummary{}, Queue: []view.QueueEntry{}, RecentRuns: []view.Run{}}
	s, err := a.openStore(ctx)
	if err != nil {
		return v, err
	}
	v.Heartbeat = loadHeartbeatView(a.dir, a.now())
	ps, err := s.Projects(ctx, store.ProjectFilter{})
	if err != nil {
		return v, err
	}
	counts, err := s.TicketCounts(ctx)
	if err != nil {
		return v, err
	}
	for _, p := range ps {
		c := view.NewStateCounts(nil)
		for st, n := range counts[p.Slug] {
			c[st] = n
		}
		v.Projects = append(v.Projects, view.ProjectSummary{Slug: p.Slug, Name: p.Name, Active: p.Active, Counts: c})
	}
	picks, err := s.Pick(ctx, "")
	if err != nil {
		return v, err
	}
	board.SortQueue(picks)
	for _, p := range picks {
		v.Queue = append(v.Queue, view.QueueEntry{
			Ref: p.Ticket.Ref().String(), Title: p.Ticket.Title, State: p.Ticket.State, SubState: p.Ticket.SubState,
			Priority: p.Ticket.Priority, Class: int(p.Class), Reason: p.Class.String(),
		})
	}
	runs, err := s.RecentRuns(ctx, recentRunsShown)
	if err != nil {
		return v, err
	}
	for _, r := range runs {
		v.RecentRuns = append(v.RecentRuns, view.NewRun(r))
	}
	return v, nil
}

func printStatus(a *app, v view.Status) error {
	w := a.stdout
	hb, _ := v.Heartbeat.(heartbeatView) // loadStatus always sets one
	printHeartbeatView(w, hb, a.now())
	fmt.Fprintln(w)
	if len(v.Projects) == 0 {
		fmt.Fprintln(w, "No projects yet. Add one with: bonsai project add <slug> --repo <path-or-url>")
		return nil
	}
	fmt.Fprintln(w, "PROJECTS")
	t := newTable(w, "  SLUG", "BACKLOG", "RESEARCH", "IN_PROGRESS", "VERIFICATION", "DONE")
	for _, p := range v.Projects {
		c := p.Counts
		t.row("  "+p.Slug, itoa(c[board.Backlog]), itoa(c[board.Research]), itoa(c[board.InProgress]),
			itoa(c[board.Verification]), itoa(c[board.Done]))
	}
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nQUEUE (what the next heartbeat would pick)")
	if len(v.Queue) == 0 {
		fmt.Fprintln(w, "  nothing to do: no ticket in RESEARCH or IN_PROGRESS is waiting for the agent")
	} else {
		t = newTable(w)
		for _, q := range v.Queue {
			t.row("  "+q.Ref, q.Reason, board.PriorityName(q.Priority), truncate(q.Title, 60))
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\nRECENT RUNS")
	if len(v.RecentRuns) == 0 {
		fmt.Fprintln(w, "  none yet")
		return nil
	}
	t = newTable(w)
	for _, r := range v.RecentRuns {
		t.row("  "+r.Ref, string(r.Status), string(r.Task), relTime(a.now(), r.StartedAt),
			formatDuration(r.Duration()), fmt.Sprintf("$%.4f", r.CostUSD))
	}
	return t.flush()
}

func itoa(n int) string { return fmt.Sprint(n) }
