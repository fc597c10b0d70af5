package insights

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// Options say what a report covers and how it groups.
type Options struct {
	// Project is the project's slug; empty for every project.
	Project string
	// Since is where the figures start; zero for the whole history.
	Since time.Time
	// By is one of Groupings; empty means ByModel.
	By string
	// Costliest is how many costliest tickets to list; 0 means 10.
	Costliest int
}

// Notes every report carries: what the stored facts cannot tell.
var notes = []string{
	"model and engine are what each ticket's newest run ran with; runs recorded before runs kept them count under their project's current setting",
	"turns are counted from runs recorded since runs kept them",
	"a landed ticket's runs, tokens and cost count all its runs, also those before the start of the period",
}

// CheckBy refuses a grouping that is not one of Groupings.
func CheckBy(by string) error {
	if by == "" || slices.Contains(Groupings, by) {
		return nil
	}
	return board.Errorf(board.EINVALID, "unknown grouping %q; use %s", by, strings.Join(Groupings, ", "))
}

// Build computes the report of facts, the projects' settings naming each
// project's model, engine and daily budget.
func Build(facts store.StatsFacts, projects []board.Project, o Options) (Report, error) {
	if err := CheckBy(o.By); err != nil {
		return Report{}, err
	}
	if o.By == "" {
		o.By = ByModel
	}
	if o.Costliest <= 0 {
		o.Costliest = 10
	}
	k := keyer{by: o.By, projects: map[string]board.Project{}}
	for _, p := range projects {
		k.projects[p.Slug] = p
	}
	r := Report{Project: o.Project, Since: o.Since, By: o.By, Notes: notes}
	r.Total, r.Groups = figures(facts.Landed, k)
	r.Days = days(facts.Days, k)
	r.Endings = endings(facts.Endings)
	r.Costliest = costliest(facts.Landed, k, o.Costliest)
	return r, nil
}

// keyer names the group of a project's fact at a time.
type keyer struct {
	by       string
	projects map[string]board.Project
}

// fact is what a group is chosen by: the project, the time, and the model
// and engine the runs recorded ("" for runs recorded before they did).
type fact struct {
	slug          string
	at            time.Time
	model, engine string
}

func (k keyer) key(f fact) string {
	p := k.projects[f.slug]
	switch k.by {
	case ByProject:
		return f.slug
	case ByWeek:
		return WeekOf(f.at)
	case ByEngine:
		if f.engine != "" {
			return f.engine
		}
		return p.Agent.Engine.String()
	}
	switch {
	case f.model != "":
		return f.model
	case p.Agent.Model == "":
		return "default"
	}
	return p.Agent.Model
}

// WeekOf returns the date of the Monday (UTC) of at's week, 2006-01-02.
func WeekOf(at time.Time) string {
	at = at.UTC()
	back := (int(at.Weekday()) + 6) % 7
	return at.AddDate(0, 0, -back).Format(time.DateOnly)
}

// figures sums the landed tickets overall and per group.
func figures(landed []store.LandedTicket, k keyer) (Figures, []Figures) {
	var all acc
	groups := map[string]*acc{}
	for _, lt := range landed {
		key := k.key(fact{lt.ProjectSlug, lt.LandedAt, lt.Model, lt.Engine})
		if groups[key] == nil {
			groups[key] = &acc{}
		}
		all.add(lt)
		groups[key].add(lt)
	}
	out := []Figures{}
	for key, a := range groups {
		out = append(out, a.figures(key))
	}
	slices.SortFunc(out, func(a, b Figures) int { return cmp.Compare(a.Key, b.Key) })
	return all.figures("all"), out
}

// acc accumulates one group's landed tickets.
type acc struct {
	f     Figures
	hours []float64
}

func (a *acc) add(lt store.LandedTicket) {
	a.f.Landed++
	if lt.Returns == 0 {
		a.f.OneShot++
	}
	a.f.Returns += lt.Returns
	a.f.Runs += lt.Runs
	a.f.Turns += lt.Turns
	a.f.Tokens += lt.Tokens()
	a.f.CostUSD += lt.CostUSD
	a.f.Questions += lt.Questions
	if !lt.FirstRunAt.IsZero() {
		a.hours = append(a.hours, hoursToLand(lt))
	}
}

// hoursToLand is the time from a ticket's first run to its landing.
func hoursToLand(lt store.LandedTicket) float64 {
	if lt.FirstRunAt.IsZero() {
		return 0
	}
	return max(0, lt.LandedAt.Sub(lt.FirstRunAt).Hours())
}

func (a *acc) figures(key string) Figures {
	f := a.f
	f.Key = key
	if n := float64(f.Landed); n > 0 {
		f.OneShotRate = float64(f.OneShot) / n
		f.PerLanded = PerTicket{Returns: float64(f.Returns) / n, Runs: float64(f.Runs) / n, Turns: float64(f.Turns) / n,
			Tokens: float64(f.Tokens) / n, CostUSD: f.CostUSD / n, Questions: float64(f.Questions) / n}
	}
	f.Timed = len(a.hours)
	if f.Timed > 0 {
		slices.Sort(a.hours)
		mid := f.Timed / 2
		f.MedianHours = a.hours[mid]
		if f.Timed%2 == 0 {
			f.MedianHours = (a.hours[mid-1] + a.hours[mid]) / 2
		}
		sum := 0.0
		for _, h := range a.hours {
			sum += h
		}
		f.MeanHours = sum / float64(f.Timed)
	}
	return f
}

// days sums the projects' days, split by group, with their budgets.
func days(ds []store.DaySpend, k keyer) []Day {
	byDay := map[string]*Day{}
	for _, d := range ds {
		day := d.Day.UTC().Format(time.DateOnly)
		out := byDay[day]
		if out == nil {
			out = &Day{Day: day, ByKey: map[string]float64{}, BudgetUSD: k.budget()}
			byDay[day] = out
		}
		out.Runs += d.Runs
		out.Tokens += d.Tokens()
		out.CostUSD += d.CostUSD
		out.ByKey[k.key(fact{d.ProjectSlug, d.Day, d.Model, d.Engine})] += d.CostUSD
		if b := k.projects[d.ProjectSlug].Agent.DailyBudgetUSD; b > 0 && d.CostUSD > b {
			out.Over = append(out.Over, d.ProjectSlug)
		}
	}
	out := make([]Day, 0, len(byDay))
	for _, d := range byDay {
		slices.Sort(d.Over)
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b Day) int { return cmp.Compare(a.Day, b.Day) })
	return out
}

// budget sums the daily budgets of the projects that have one.
func (k keyer) budget() float64 {
	sum := 0.0
	for _, p := range k.projects {
		sum += p.Agent.DailyBudgetUSD
	}
	return sum
}

// endings lists the failed and stopped runs, most first.
func endings(es []store.RunEnding) []Ending {
	out := make([]Ending, 0, len(es))
	for _, e := range es {
		out = append(out, Ending{Project: e.ProjectSlug, Status: string(e.Status), Reason: reason(e.Error), Runs: e.Runs, Last: e.Last})
	}
	slices.SortStableFunc(out, func(a, b Ending) int { return cmp.Compare(b.Runs, a.Runs) })
	return out
}

// reason is the first line of a run's error, at most 160 characters.
func reason(errText string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(errText), "\n")
	if line == "" {
		return "(no error recorded)"
	}
	if r := []rune(line); len(r) > 160 {
		return string(r[:159]) + "…"
	}
	return line
}

// costliest lists the n landed tickets that cost most.
func costliest(landed []store.LandedTicket, k keyer, n int) []Ticket {
	sorted := slices.Clone(landed)
	slices.SortStableFunc(sorted, func(a, b store.LandedTicket) int { return cmp.Compare(b.CostUSD, a.CostUSD) })
	out := []Ticket{}
	for _, lt := range sorted[:min(n, len(sorted))] {
		out = append(out, Ticket{Ref: fmt.Sprintf("%s#%d", lt.ProjectSlug, lt.Number), Title: lt.Title,
			Key: k.key(fact{lt.ProjectSlug, lt.LandedAt, lt.Model, lt.Engine}), CostUSD: lt.CostUSD, Runs: lt.Runs, Returns: lt.Returns,
			LandedAt: lt.LandedAt, HoursToLand: hoursToLand(lt)})
	}
	return out
}
