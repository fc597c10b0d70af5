package text

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/insights"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// WriteStats renders `bonsai stats`: the landed tickets' figures per group
// and in all, the spend per day against the budgets, the failed and
// stopped runs, the costliest tickets and what the figures cannot tell.
func WriteStats(w io.Writer, r insights.Report, now time.Time) error {
	scope := "every project"
	if r.Project != "" {
		scope = "project " + termsafe.Line(r.Project)
	}
	since := "its whole history"
	if !r.Since.IsZero() {
		since = "since " + r.Since.UTC().Format(time.DateOnly)
	}
	fmt.Fprintf(w, "Insights of %s, %s, by %s\n\n", scope, since, r.By)
	if err := writeStatsGroups(w, r); err != nil {
		return err
	}
	if err := writeStatsDays(w, r.Days); err != nil {
		return err
	}
	if err := writeStatsEndings(w, r.Endings, now); err != nil {
		return err
	}
	if err := writeStatsCostliest(w, r.Costliest); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nNotes:")
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  - %s\n", n)
	}
	return nil
}

func writeStatsGroups(w io.Writer, r insights.Report) error {
	fmt.Fprintln(w, "Landed tickets (per landed ticket: returns, runs, tokens, cost, questions):")
	t := NewTable(w, strings.ToUpper(r.By), "LANDED", "ONE-SHOT", "RETURNS", "RUNS", "TOKENS", "COST", "QUESTIONS", "MEDIAN TO LAND")
	for _, f := range append(r.Groups, r.Total) {
		p := f.PerLanded
		if f.Landed == 0 {
			t.Row(f.Key, "0", "-", "-", "-", "-", "-", "-", "-")
			continue
		}
		t.Row(f.Key, itoa(f.Landed), percent(f.OneShotRate, f.Landed), dec(p.Returns), dec(p.Runs),
			fmt.Sprintf("%.0f", p.Tokens), usd(p.CostUSD), dec(p.Questions), hours(f.MedianHours, f.Timed))
	}
	return t.Flush()
}

func writeStatsDays(w io.Writer, days []insights.Day) error {
	fmt.Fprintln(w, "\nSpend per day (UTC):")
	if len(days) == 0 {
		fmt.Fprintln(w, "  no runs")
		return nil
	}
	t := NewTable(w, "DAY", "RUNS", "TOKENS", "COST", "DAILY BUDGET", "OVER BUDGET")
	for _, d := range days {
		budget := "-"
		if d.BudgetUSD > 0 {
			budget = usd(d.BudgetUSD)
		}
		t.Row(d.Day, itoa(d.Runs), fmt.Sprint(d.Tokens), usd(d.CostUSD), budget, strings.Join(d.Over, ", "))
	}
	return t.Flush()
}

func writeStatsEndings(w io.Writer, es []insights.Ending, now time.Time) error {
	fmt.Fprintln(w, "\nFailed and stopped runs:")
	if len(es) == 0 {
		fmt.Fprintln(w, "  none")
		return nil
	}
	t := NewTable(w, "PROJECT", "STATUS", "RUNS", "LAST", "REASON")
	for _, e := range es {
		t.Row(e.Project, e.Status, itoa(e.Runs), RelTime(now, e.Last), e.Reason)
	}
	return t.Flush()
}

func writeStatsCostliest(w io.Writer, ts []insights.Ticket) error {
	fmt.Fprintln(w, "\nCostliest landed tickets:")
	if len(ts) == 0 {
		fmt.Fprintln(w, "  none")
		return nil
	}
	t := NewTable(w, "TICKET", "COST", "RUNS", "RETURNS", "TO LAND", "TITLE")
	for _, tk := range ts {
		t.Row(tk.Ref, usd(tk.CostUSD), itoa(tk.Runs), itoa(tk.Returns), hours(tk.HoursToLand, tk.Runs), tk.Title)
	}
	return t.Flush()
}

func percent(rate float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", rate*100)
}

func dec(v float64) string { return fmt.Sprintf("%.1f", v) }

func usd(v float64) string { return fmt.Sprintf("$%.2f", v) }

// hours shows a time to land, "-" when nothing was timed.
func hours(h float64, timed int) string {
	if timed == 0 {
		return "-"
	}
	if h < 48 {
		return fmt.Sprintf("%.1f h", h)
	}
	return fmt.Sprintf("%.1f d", h/24)
}
