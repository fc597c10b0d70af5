package text

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/view"
)

// WriteStatus writes `bonsai status`: the heartbeat, the models that cannot
// run or have no price, a sandbox that cannot start, the safety warnings,
// the projects, the queue, the tickets waiting on a
// person, the running and recent runs and today's spend. v.Heartbeat is a
// HeartbeatStatus; anything else shows as no beat yet.
func WriteStatus(w io.Writer, v view.Status, now time.Time) error {
	hb, _ := v.Heartbeat.(HeartbeatStatus)
	WriteHeartbeatStatus(w, hb, now)
	fmt.Fprintln(w)
	if len(v.Projects) == 0 {
		fmt.Fprintln(w, "No projects yet. Add one with: bonsai project add <slug> --repo <path-or-url>")
		return nil
	}
	for _, m := range v.Models {
		if m.Problem != "" {
			fmt.Fprintf(w, "MODEL %s cannot run (%s): %s\n\n", termsafe.Line(m.Model), someOf(m.Projects, 5), termsafe.Line(m.Problem))
		}
		if m.Unpriced {
			fmt.Fprintf(w, "MODEL %s has no price in the model catalog (%s): %s\n\n", termsafe.Line(m.Model), someOf(m.Projects, 5), termsafe.Line(UnpricedHelp(m.Model)))
		}
	}
	writeSandboxWarnings(w, v)
	writeKeySources(w, v.Models)
	fmt.Fprintln(w, "PROJECTS")
	t := NewTable(w, "  SLUG", "BACKLOG", "RESEARCH", "IN_PROGRESS", "VERIFICATION", "DONE")
	for _, p := range v.Projects {
		c := p.Counts
		t.Row("  "+p.Slug, itoa(c[board.Backlog]), itoa(c[board.Research]), itoa(c[board.InProgress]),
			itoa(c[board.Verification]), itoa(c[board.Done]))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nQUEUE (what the next heartbeat would pick)")
	if len(v.Queue) == 0 {
		fmt.Fprintln(w, "  nothing to do: no ticket in RESEARCH or IN_PROGRESS is waiting for the agent")
	} else {
		t = NewTable(w)
		for _, q := range v.Queue {
			t.Row("  "+q.Ref, q.Reason, board.PriorityName(q.Priority), Truncate(q.Title, 60))
		}
		if err := t.Flush(); err != nil {
			return err
		}
	}
	if len(v.Blocked) > 0 {
		fmt.Fprintf(w, "\nWAITING ON YOU: %d (the agent asked; answer with: bonsai comment add <ticket> <text>)\n", v.BlockedTotal)
		t = NewTable(w)
		for _, b := range v.Blocked {
			t.Row("  "+b.Ref, "asked "+RelTime(now, b.UpdatedAt), Truncate(b.Title, 60))
		}
		if err := t.Flush(); err != nil {
			return err
		}
		if more := v.BlockedTotal - len(v.Blocked); more > 0 {
			fmt.Fprintf(w, "  …and %d more (bonsai status --json lists the first %d)\n", more, view.BlockedShown)
		}
	}
	if err := writeWaiting(w, v.Waiting); err != nil {
		return err
	}
	if len(v.Running) > 0 {
		fmt.Fprintln(w, "\nRUNNING")
		t = NewTable(w)
		for _, r := range v.Running {
			t.Row("  "+r.Ref, string(r.Task), "started "+RelTime(now, r.StartedAt))
		}
		if err := t.Flush(); err != nil {
			return err
		}
	}
	if err := writeWorkers(w, v, now); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nSPEND TODAY\n  %s in %d run(s), %d tokens\n", board.USD(v.SpendToday.CostUSD), v.SpendToday.Runs, v.SpendToday.Tokens)
	fmt.Fprintln(w, "\nRECENT RUNS")
	if len(v.RecentRuns) == 0 {
		fmt.Fprintln(w, "  none yet")
		return nil
	}
	t = NewTable(w)
	for _, r := range v.RecentRuns {
		t.Row("  "+r.Ref, string(r.Status), string(r.Task), RelTime(now, r.StartedAt),
			Duration(r.Duration()), board.USD(r.CostUSD))
	}
	return t.Flush()
}

// writeSandboxWarnings warns about the active projects whose required
// sandbox cannot start (their tickets are skipped), in one line, and
// writes the safety warnings (a sandbox that is off) one per project.
func writeSandboxWarnings(w io.Writer, v view.Status) {
	var stuck []string
	problem := ""
	for _, p := range v.Projects {
		if p.Active && p.SandboxProblem != "" {
			stuck, problem = append(stuck, p.Slug), p.SandboxProblem
		}
	}
	if len(stuck) > 0 {
		fmt.Fprintf(w, "SANDBOX cannot start (%s): %s; their tickets are skipped until it does, or until `bonsai project edit %s --sandbox off` lets commands run on the host\n\n",
			someOf(stuck, 5), termsafe.Line(problem), stuck[0])
	}
	for _, x := range v.Warnings {
		fmt.Fprintf(w, "WARNING %s\n\n", termsafe.Line(x.Message))
	}
}

// UnpricedHelp says what a model without a price in the catalog means and
// how to price it.
func UnpricedHelp(id string) string {
	return fmt.Sprintf("budgets in USD do not count its runs; if it is not free, set its price with: bonsai config set models.%s.price.input <USD per million tokens> (and price.output, price.cacheRead, price.cacheWrite)", id)
}

func itoa(n int) string { return fmt.Sprint(n) }

// someOf lists the first n names and counts the rest: "a, b, c and 97 more".
func someOf(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// writeKeySources writes one line saying where the key of each ready
// model comes from, so that a key the service cannot see (one exported in
// a shell only) is plain.
func writeKeySources(w io.Writer, models []view.ModelStatus) {
	var parts []string
	for _, m := range models {
		switch m.KeySource {
		case "environment":
			parts = append(parts, m.Model+" from the environment")
		case "stored":
			parts = append(parts, m.Model+" stored (bonsai credentials)")
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "KEYS %s\n\n", termsafe.Line(strings.Join(parts, "; ")))
	}
}

// workerKind is what a worker runs and its version; "-" for a lease
// holder the registry does not know.
func workerKind(wk view.Worker) string {
	if wk.Kind == "" {
		return "-"
	}
	return wk.Kind + " " + wk.Version
}

// workerState is a worker's last beat, or that it stopped or is gone.
func workerState(wk view.Worker, now time.Time) string {
	switch {
	case wk.StoppedAt != nil:
		return "stopped " + RelTime(now, *wk.StoppedAt)
	case wk.Gone:
		return "gone? no sign since " + RelTime(now, wk.LastSeen)
	case wk.LastBeat == nil:
		return "no beat recorded; seen " + RelTime(now, wk.LastSeen)
	}
	return "last beat " + RelTime(now, *wk.LastBeat)
}

// writeWorkers lists the workers of a board several machines share, when
// status found any, and the leases they hold.
func writeWorkers(w io.Writer, v view.Status, now time.Time) error {
	if len(v.Workers) == 0 && len(v.Leases) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nWORKERS (newest sign first: a beat, a run or a lease)")
	t := NewTable(w)
	for _, wk := range v.Workers {
		holds := "holds nothing"
		if len(wk.Leases) > 0 {
			holds = "holds " + strings.Join(wk.Leases, ", ")
		}
		t.Row("  "+wk.ID, workerKind(wk), workerState(wk, now), holds)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nLEASES")
	if len(v.Leases) == 0 {
		fmt.Fprintln(w, "  none: no agent runs on this board now")
		return nil
	}
	t = NewTable(w)
	for _, l := range v.Leases {
		state := "until " + l.ExpiresAt.UTC().Format(time.TimeOnly) + " UTC"
		if !l.ExpiresAt.After(now) {
			state = "expired " + RelTime(now, l.ExpiresAt) + "; the next beat ends it"
		}
		t.Row("  "+l.Ref.String(), l.Worker, "since "+RelTime(now, l.AcquiredAt), state)
	}
	return t.Flush()
}
