package text

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// WritePlans writes what `bonsai heartbeat --dry-run` would pick: a row per
// planned ticket, then a row per project in idle, which has nothing to pick.
func WritePlans(w io.Writer, plans []heartbeat.Plan, idle []string) error {
	if len(plans) == 0 {
		fmt.Fprintln(w, "Nothing to pick: no RESEARCH or IN_PROGRESS ticket is waiting for an agent.")
		return nil
	}
	t := NewTable(w, "PROJECT", "TICKET", "TITLE", "WHY", "TASK", "MODEL")
	for _, p := range plans {
		model := p.Model
		if p.Blocker != "" {
			model += " (not run: " + p.Blocker + ")"
		}
		t.Row(p.Project.Slug, "#"+fmt.Sprint(p.Ticket.Number), Truncate(p.Ticket.Title, 40), p.Class.String(), string(p.Task), model)
	}
	for _, slug := range idle {
		t.Row(slug, "-", "nothing to pick", "", "", "")
	}
	return t.Flush()
}

// WriteReport writes the report of one beat: what it cleaned up, then a
// row per run with its result.
func WriteReport(w io.Writer, rep heartbeat.Report) error {
	if rep.Skipped {
		fmt.Fprintln(w, (&heartbeat.HeldError{PID: rep.HolderPID}).Error())
		return nil
	}
	var notes []string
	if rep.Interrupted > 0 {
		notes = append(notes, fmt.Sprintf("marked %d run(s) of a dead beat interrupted", rep.Interrupted))
	}
	if rep.Removed > 0 {
		notes = append(notes, fmt.Sprintf("removed %d worktree(s) of done tickets", rep.Removed))
	}
	if pr := rep.Reviews; pr != nil && pr.Open > 0 {
		notes = append(notes, pullRequestNote(*pr))
	}
	for _, n := range notes {
		fmt.Fprintln(w, strings.ToUpper(n[:1])+n[1:]+".")
	}
	writeFired(w, rep.Fired)
	if rep.Unchanged {
		fmt.Fprintln(w, "Nothing to do (nothing changed since the last beat).")
		return nil
	}
	if len(rep.Runs) == 0 {
		fmt.Fprintf(w, "Nothing to do (%s).\n", max(rep.Duration(), time.Millisecond).Round(time.Millisecond))
		return nil
	}
	t := NewTable(w, "TICKET", "TASK", "RESULT", "DURATION")
	for _, r := range rep.Runs {
		result := string(r.Status)
		switch {
		case r.Skipped != "":
			result = "skipped: " + r.Skipped
		case r.MovedTo != "":
			result += ", moved to " + string(r.MovedTo)
		case r.Error != "":
			result += ": " + Truncate(r.Error, 80)
		}
		if r.Guard != "" {
			result += "; BLOCKED: " + r.Guard
		}
		if r.PushError != "" {
			result += "; NOT PUSHED: " + OneLine(r.PushError, 120)
		}
		if r.PullRequestError != "" {
			result += "; NO PULL REQUEST: " + OneLine(r.PullRequestError, 120)
		}
		t.Row(r.Ticket, string(r.Task), result, Duration(r.Duration))
	}
	return t.Flush()
}

// pullRequestNote says what following the open pull requests did.
func pullRequestNote(pr heartbeat.ReviewSync) string {
	s := fmt.Sprintf("followed %d pull request(s): %d unchanged", pr.Open, pr.Unchanged)
	for _, c := range []struct {
		n    int
		what string
	}{{pr.Merged, "merged"}, {pr.Returned, "returned with review"}, {pr.Closed, "closed"}, {pr.ChecksFailed, "with failing checks"}, {pr.Errors, "not read"}, {pr.Waiting, "waiting for the forge's rate limit"}} {
		if c.n > 0 {
			s += fmt.Sprintf(", %d %s", c.n, c.what)
		}
	}
	return s
}

// writeFired prints a line per schedule the beat fired.
func writeFired(w io.Writer, fired []heartbeat.FireReport) {
	for _, f := range fired {
		switch {
		case f.Lost:
			continue
		case f.Ticket != "":
			fmt.Fprintf(w, "Schedule %s fired: created %s.\n", termsafe.Line(f.Schedule), f.Ticket)
		case f.Detail != "":
			fmt.Fprintf(w, "Schedule %s fired: %s (%s).\n", termsafe.Line(f.Schedule), f.Outcome, OneLine(f.Detail, 120))
		default:
			fmt.Fprintf(w, "Schedule %s fired: %s.\n", termsafe.Line(f.Schedule), f.Outcome)
		}
	}
}
