package cli

import (
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
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
			return printStatus(a, v)
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
		Heartbeat: loadHeartbeatView(a.dir, a.now()),
		Now:       a.now(),
		Models: func(ps []board.Project) []view.ModelStatus {
			return modelStatuses(a.getenv, cfg, ps)
		},
	})
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
	for _, m := range v.Models {
		if m.Problem != "" {
			fmt.Fprintf(w, "MODEL %s cannot run (%s): %s\n\n", m.Model, someOf(m.Projects, 5), m.Problem)
		}
		if m.Unpriced {
			fmt.Fprintf(w, "MODEL %s has no price in the model catalog (%s): %s\n\n", m.Model, someOf(m.Projects, 5), unpricedHelp(m.Model))
		}
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
	if len(v.Blocked) > 0 {
		fmt.Fprintf(w, "\nWAITING ON YOU: %d (the agent asked; answer with: bonsai comment add <ticket> <text>)\n", v.BlockedTotal)
		t = newTable(w)
		for _, b := range v.Blocked {
			t.row("  "+b.Ref, "asked "+relTime(a.now(), b.UpdatedAt), truncate(b.Title, 60))
		}
		if err := t.flush(); err != nil {
			return err
		}
		if more := v.BlockedTotal - len(v.Blocked); more > 0 {
			fmt.Fprintf(w, "  …and %d more (bonsai status --json lists the first %d)\n", more, view.BlockedShown)
		}
	}
	if len(v.Running) > 0 {
		fmt.Fprintln(w, "\nRUNNING")
		t = newTable(w)
		for _, r := range v.Running {
			t.row("  "+r.Ref, string(r.Task), "started "+relTime(a.now(), r.StartedAt))
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nSPEND TODAY\n  %s in %d run(s), %d tokens\n", board.USD(v.SpendToday.CostUSD), v.SpendToday.Runs, v.SpendToday.Tokens)
	fmt.Fprintln(w, "\nRECENT RUNS")
	if len(v.RecentRuns) == 0 {
		fmt.Fprintln(w, "  none yet")
		return nil
	}
	t = newTable(w)
	for _, r := range v.RecentRuns {
		t.row("  "+r.Ref, string(r.Status), string(r.Task), relTime(a.now(), r.StartedAt),
			formatDuration(r.Duration()), board.USD(r.CostUSD))
	}
	return t.flush()
}

func itoa(n int) string { return fmt.Sprint(n) }

// someOf lists the first n names and counts the rest: "a, b, c and 97 more".
func someOf(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
