package text

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/schedule"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// WriteSchedules prints the schedules of `schedule list` as a table, or
// how to add one when there are none.
func WriteSchedules(w io.Writer, ss []board.Schedule, now time.Time) {
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
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\n", s.ProjectSlug, termsafe.Line(s.Name), when(s), NextFire(s), last, termsafe.Line(scheduleStatus(s)))
	}
	tw.Flush()
}

// WriteSchedule prints `schedule show`: the schedule and its last firings.
func WriteSchedule(w io.Writer, s board.Schedule, frs []board.Firing, now time.Time) {
	fmt.Fprintf(w, "%s/%s: %s\n", s.ProjectSlug, termsafe.Line(s.Name), when(s))
	fmt.Fprintf(w, "Status: %s; %s\n", termsafe.Line(scheduleStatus(s)), termsafe.Line(NextLine(s, now)))
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

// when is the schedule's timing in words.
func when(s board.Schedule) string {
	return termsafe.Line(fmt.Sprintf("%s %s (%s)", s.Kind, s.Expr, s.TimeZone))
}

// NextFire is the schedule's next firing in its zone, "-" for none.
func NextFire(s board.Schedule) string {
	if s.NextFire.IsZero() {
		return "-"
	}
	return inZone(s.NextFire, s.TimeZone)
}

// inZone is t in the IANA zone, or as it is when the zone is unknown.
func inZone(t time.Time, zone string) string {
	if loc, err := schedule.LoadZone(zone); err == nil {
		t = t.In(loc)
	}
	return t.Format("2006-01-02 15:04 MST")
}

// scheduleStatus is paused, failing, done or active.
func scheduleStatus(s board.Schedule) string {
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

// NextLine says when s fires next, as of now: "paused", "it will not fire
// again" or "next firing 2026-12-01 09:00 CET (in 3d 22h)".
func NextLine(s board.Schedule, now time.Time) string {
	switch {
	case s.Paused:
		return "paused"
	case s.NextFire.IsZero():
		return "it will not fire again"
	}
	return fmt.Sprintf("next firing %s (in %s)", NextFire(s), until(s.NextFire.Sub(now)))
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

// FireLine says what a firing did, in one line.
func FireLine(rep heartbeat.FireReport) string {
	switch {
	case rep.Lost:
		return rep.Schedule + " fired already (a heartbeat was firing it)"
	case rep.Ticket != "":
		return rep.Schedule + " fired: created " + rep.Ticket
	}
	s := fmt.Sprintf("%s fired: %s", rep.Schedule, rep.Outcome)
	if rep.Detail != "" {
		s += ": " + termsafe.Line(rep.Detail)
	}
	return s
}

// WriteDue lists, for `heartbeat --dry-run`, the due schedules a beat
// would fire now (of project only, when given).
func WriteDue(w io.Writer, due []board.Schedule, project string) {
	for _, s := range due {
		if project == "" || s.ProjectSlug == project {
			fmt.Fprintf(w, "Schedule %s/%s is due (%s): a beat would fire it.\n", s.ProjectSlug, s.Name, NextFire(s))
		}
	}
}
