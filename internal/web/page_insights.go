package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/insights"
	"github.com/bonsai-run/bonsai/internal/store"
)

// statsStore is what the Insights page needs of the store.
type statsStore interface {
	StatsFacts(ctx context.Context, f store.StatsFilter) (store.StatsFacts, error)
}

var _ statsStore = store.Store(nil)

// insightsPeriods are the periods the page offers, by their --since form.
var insightsPeriods = []struct{ Value, Label string }{
	{"7d", "7 days"}, {"30d", "30 days"}, {"90d", "90 days"}, {"all", "all time"},
}

// insightsView is what templates/insights.html shows.
type insightsView struct {
	Project  board.Project // zero on the page of every project
	Projects []board.Project
	Since    string
	Periods  []struct{ Value, Label string }
	Model    insights.Report // grouped by model
	Engine   insights.Report // the same facts grouped by engine
	Summary  string
	Spend    stackChart
	Groups   []groupSection // by model, then by engine
	Costly   barChart
	Tickets  []ticketRow
}

// groupSection is the landed tickets by one grouping: three charts and
// their table.
type groupSection struct {
	By                  string
	OneShot, Cost, Time barChart
	Rows                []figRow
}

// ticketRow is one of the costliest tickets, with its page's address.
type ticketRow struct {
	insights.Ticket
	Href string
}

// insightsPage shows every project's insights; projectInsightsPage one's.
func (s *Server) insightsPage(w http.ResponseWriter, r *http.Request) error {
	return s.renderInsights(w, r, "")
}

func (s *Server) projectInsightsPage(w http.ResponseWriter, r *http.Request) error {
	return s.renderInsights(w, r, r.PathValue("slug"))
}

func (s *Server) renderInsights(w http.ResponseWriter, r *http.Request, slug string) error {
	ss, ok := s.store.(statsStore)
	if !ok {
		return errors.New("this store keeps no stats")
	}
	ctx := r.Context()
	v := insightsView{Since: r.URL.Query().Get("since"), Periods: insightsPeriods}
	if !slices.ContainsFunc(insightsPeriods, func(p struct{ Value, Label string }) bool { return p.Value == v.Since }) {
		v.Since = "30d"
	}
	since, err := insights.ParseSince(v.Since, s.opts.Now())
	if err != nil {
		return err
	}
	if v.Projects, err = s.store.Projects(ctx, store.ProjectFilter{IncludeArchived: true}); err != nil {
		return err
	}
	scope := v.Projects
	if slug != "" {
		if v.Project, err = s.store.Project(ctx, slug); err != nil {
			return err
		}
		scope = []board.Project{v.Project}
	}
	facts, err := ss.StatsFacts(ctx, store.StatsFilter{ProjectSlug: slug, Since: since})
	if err != nil {
		return err
	}
	o := insights.Options{Project: slug, Since: since, By: insights.ByModel}
	if v.Model, err = insights.Build(facts, scope, o); err != nil {
		return err
	}
	o.By = insights.ByEngine
	if v.Engine, err = insights.Build(facts, scope, o); err != nil {
		return err
	}
	v.charts()
	title := "Insights"
	if slug != "" {
		title += " · " + v.Project.Name
	}
	s.render(w, r, http.StatusOK, "insights", pageData{Title: title, Project: slug, Data: v})
	return nil
}

// charts lays out the page's charts from its two reports.
func (v *insightsView) charts() {
	v.Spend = newStackChart("Spend per day, stacked by model", v.Model.Days)
	t := v.Model.Total
	v.Summary = fmt.Sprintf("%d tickets landed", t.Landed)
	if t.Landed > 0 {
		v.Summary += fmt.Sprintf("; %.0f%% in one shot; %s and %.1f runs per landed ticket", t.OneShotRate*100, money(t.PerLanded.CostUSD), t.PerLanded.Runs)
	}
	for _, r := range []insights.Report{v.Model, v.Engine} {
		labels, rate, cost, hours := []string{}, []float64{}, []float64{}, []float64{}
		for _, g := range r.Groups {
			labels = append(labels, g.Key)
			rate, cost, hours = append(rate, g.OneShotRate*100), append(cost, g.PerLanded.CostUSD), append(hours, g.MedianHours)
		}
		v.Groups = append(v.Groups, groupSection{By: r.By, Rows: rows(r),
			OneShot: newBarChart("One-shot rate by "+r.By, labels, rate, func(x float64) string { return fmt.Sprintf("%.0f%%", x) }),
			Cost:    newBarChart("Cost per landed ticket by "+r.By, labels, cost, money),
			Time:    newBarChart("Median time to land by "+r.By, labels, hours, hoursText)})
	}
	labels, cost := []string{}, []float64{}
	for _, t := range v.Model.Costliest {
		labels, cost = append(labels, t.Ref), append(cost, t.CostUSD)
		href := ""
		if ref, err := board.ParseRef(t.Ref); err == nil {
			href = fmt.Sprintf("/p/%s/%d", ref.Project, ref.Number)
		}
		v.Tickets = append(v.Tickets, ticketRow{Ticket: t, Href: href})
	}
	v.Costly = newBarChart("The costliest landed tickets", labels, cost, money)
}

// hoursText shows a time to land in hours, or days past two.
func hoursText(h float64) string {
	if h < 48 {
		return fmt.Sprintf("%.1f h", h)
	}
	return fmt.Sprintf("%.1f d", h/24)
}

// figRow is one row of the page's figure tables, formatted.
type figRow struct {
	Key, Landed, OneShot, Returns, Runs, Tokens, Cost, Questions, Time string
}

// rows formats a report's groups, then its total.
func rows(r insights.Report) []figRow {
	out := []figRow{}
	for _, f := range append(slices.Clone(r.Groups), r.Total) {
		row := figRow{Key: f.Key, Landed: fmt.Sprint(f.Landed), OneShot: "-", Returns: "-", Runs: "-", Tokens: "-",
			Cost: "-", Questions: "-", Time: "-"}
		if f.Landed > 0 {
			p := f.PerLanded
			row.OneShot = fmt.Sprintf("%.0f%% (%d)", f.OneShotRate*100, f.OneShot)
			row.Returns, row.Runs, row.Questions = fmt.Sprintf("%.1f", p.Returns), fmt.Sprintf("%.1f", p.Runs), fmt.Sprintf("%.1f", p.Questions)
			row.Tokens, row.Cost = fmt.Sprintf("%.0f", p.Tokens), money(p.CostUSD)
		}
		if f.Timed > 0 {
			row.Time = hoursText(f.MedianHours)
		}
		out = append(out, row)
	}
	return out
}
