package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
)

// projectForm is the project settings form as shown: the project's values,
// or what the person typed when a save was refused. A cap of 0 shows as
// an empty field (the configured cap).
type projectForm struct {
	Name, Repo, DefaultBranch, Model, Verify                                      string
	BudgetUSD, TicketTokens, RunBudgetUSD, RunTokens, DailyBudgetUSD, DailyTokens string
	TakeBacklog                                                                   bool
	// Mode, Sandbox and Network are the chosen values ("auto", "plan", …);
	// Allow, Ask and AllowHosts the textareas, one item a line.
	Mode, Sandbox, Network string
	Allow, Ask, AllowHosts string
	// Land, LandStyle, UpdateStyle, Engine and Thinking are the chosen
	// values ("auto", "squash", …); MCPServers the textarea, one name a
	// line.
	Land, LandStyle, UpdateStyle, Engine, Thinking string
	MCPServers                                     string
	ScheduleTools                                  bool
	// Table holds the inputs of the settings the table shows in sections
	// of their own (TableFields), by name.
	Table map[string]string
}

// configCaps is what an empty field means: config.json's model and caps.
type configCaps struct {
	Model                                      string
	TicketUSD, TicketTokens, RunUSD, RunTokens string
	DailyUSD, DailyTokens                      string
}

type projectSettingsView struct {
	Project board.Project
	Form    projectForm
	Errors  fieldErrors
	Config  configCaps
	Saved   bool // the last save changed something
	Same    bool // the last save changed nothing
}

func usdText(f float64) string {
	if f == 0 {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func tokensText(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

func formOf(p board.Project) projectForm {
	a := p.Agent
	return projectForm{Name: p.Name, Repo: p.Repo, DefaultBranch: p.DefaultBranch, Model: a.Model, Verify: a.Verify,
		BudgetUSD: usdText(a.BudgetUSD), TicketTokens: tokensText(a.TicketTokens),
		RunBudgetUSD: usdText(a.RunBudgetUSD), RunTokens: tokensText(a.RunTokens),
		DailyBudgetUSD: usdText(a.DailyBudgetUSD), DailyTokens: tokensText(a.DailyTokens), TakeBacklog: a.TakeBacklog,
		Mode: a.PermissionMode.String(), Sandbox: a.Sandbox.String(), Network: a.Network.String(),
		Allow: lines(a.Allow), Ask: lines(a.Ask), AllowHosts: lines(a.AllowHosts),
		Land: a.Land.String(), LandStyle: a.LandStyle.String(), UpdateStyle: a.UpdateStyle.String(),
		Engine: a.Engine.String(), Thinking: a.Thinking.String(), MCPServers: lines(a.MCPServers), ScheduleTools: a.ScheduleTools,
		Table: tableForm(a)}
}

// configCapsOf describes config.json's defaults; a config.json that does
// not load shows the built-in ones (the settings page reports the problem).
func (s *Server) configCaps() configCaps {
	c, err := config.Load(s.opts.Dir.ConfigFile())
	if err != nil {
		c = config.Default()
	}
	usd := func(f float64) string {
		if f == 0 {
			return "no cap"
		}
		return fmt.Sprintf("$%.2f", f)
	}
	tok := func(n int) string {
		if n == 0 {
			return "no cap"
		}
		return strconv.Itoa(n) + " tokens"
	}
	b := c.Budget
	return configCaps{Model: c.Model, TicketUSD: usd(b.TicketUSD), TicketTokens: tok(b.TicketTokens),
		RunUSD: usd(b.RunUSD), RunTokens: tok(b.RunTokens), DailyUSD: usd(b.ProjectDailyUSD), DailyTokens: tok(b.ProjectDailyTokens)}
}

func (s *Server) projectSettingsPage(w http.ResponseWriter, r *http.Request) error {
	p, err := s.store.Project(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	return s.renderProjectSettings(w, r, http.StatusOK, projectSettingsView{Project: p, Form: formOf(p),
		Saved: q.Get("saved") == "1", Same: q.Get("saved") == "0"})
}

func (s *Server) renderProjectSettings(w http.ResponseWriter, r *http.Request, status int, v projectSettingsView) error {
	v.Config = s.configCaps()
	s.render(w, r, status, "project", pageData{Title: "Settings · " + v.Project.Name, Project: v.Project.Slug, Data: v})
	return nil
}

// parseProjectForm reads the settings form from r.PostForm, which the
// caller has parsed. Fields absent from the post
// are kept; a field that is not a number is an error next to it. The
// checkbox is sent only when ticked, so its absence means false.
func parseProjectForm(r *http.Request) (projectForm, projectEdit, fieldErrors) {
	var f projectForm
	var e projectEdit
	errs := fieldErrors{}
	field := func(name string) (string, bool) {
		vs, ok := r.PostForm[name]
		if !ok || len(vs) == 0 {
			return "", false
		}
		return vs[0], true
	}
	str := func(name string, shown *string, dst **string) {
		if v, ok := field(name); ok {
			*shown, *dst = v, &v
		}
	}
	str("name", &f.Name, &e.Name)
	str("repo", &f.Repo, &e.Repo)
	str("defaultBranch", &f.DefaultBranch, &e.DefaultBranch)
	str("model", &f.Model, &e.Model)
	str("verify", &f.Verify, &e.Verify)
	usd := func(name, what string, shown *string, dst **float64) {
		t, ok := field(name)
		if !ok {
			return
		}
		*shown = t
		v, err := 0.0, error(nil)
		if t = strings.TrimSpace(t); t != "" {
			v, err = strconv.ParseFloat(t, 64)
		}
		if err != nil {
			errs[name] = what + " must be a number of dollars, e.g. 2.50, or empty for config.json's cap"
			return
		}
		*dst = &v
	}
	tokens := func(name, what string, shown *string, dst **int64) {
		t, ok := field(name)
		if !ok {
			return
		}
		*shown = t
		v, err := int64(0), error(nil)
		if t = strings.TrimSpace(t); t != "" {
			v, err = strconv.ParseInt(t, 10, 64)
		}
		if err != nil {
			errs[name] = what + " must be a whole number of tokens, e.g. 200000, or empty for config.json's cap"
			return
		}
		*dst = &v
	}
	usd("budgetUsd", "budget per ticket", &f.BudgetUSD, &e.BudgetUSD)
	tokens("ticketTokens", "tokens per ticket", &f.TicketTokens, &e.TicketTokens)
	usd("runBudgetUsd", "budget per run", &f.RunBudgetUSD, &e.RunBudgetUSD)
	tokens("runTokens", "tokens per run", &f.RunTokens, &e.RunTokens)
	usd("dailyBudgetUsd", "budget per day", &f.DailyBudgetUSD, &e.DailyBudgetUSD)
	tokens("dailyTokens", "tokens per day", &f.DailyTokens, &e.DailyTokens)
	f.TakeBacklog = r.PostFormValue("takeBacklog") != ""
	e.TakeBacklog = &f.TakeBacklog
	parseSafetyForm(field, &f, &e)
	parseWorkForm(field, &f, &e)
	f.ScheduleTools = r.PostFormValue("scheduleTools") != ""
	e.ScheduleTools = &f.ScheduleTools
	parseTableForm(field, &f, &e, errs)
	return f, e, errs
}

// saveProjectSettings is the project settings form. Only the fields that
// changed are written; refused fields are shown next to their input with
// what was typed kept, and then nothing is written.
func (s *Server) saveProjectSettings(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	slug := r.PathValue("slug")
	cur, err := s.store.Project(ctx, slug)
	if err != nil {
		return err
	}
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return badRequest("the form could not be read: " + err.Error())
	}
	form, e, errs := parseProjectForm(r)
	u, planErrs := s.planProjectEdit(ctx, cur, e)
	for k, m := range planErrs {
		errs[k] = m
	}
	if len(errs) == 0 && !u.IsZero() {
		if _, err := s.store.UpdateProject(ctx, slug, u); err != nil {
			status, _, msg := classify(err)
			if status != http.StatusBadRequest {
				return err
			}
			errs["form"] = msg
		}
	}
	if len(errs) > 0 {
		return s.renderProjectSettings(w, r, http.StatusBadRequest, projectSettingsView{Project: cur, Form: form, Errors: errs})
	}
	saved := "1"
	if u.IsZero() {
		saved = "0"
	}
	http.Redirect(w, r, "/p/"+slug+"/settings?saved="+saved, http.StatusSeeOther)
	return nil
}

// archiveForm and unarchiveForm archive and unarchive a project, then go
// back to the page the button was on: the board or the settings page.
func (s *Server) archiveForm(w http.ResponseWriter, r *http.Request) error {
	return s.setActive(w, r, s.store.ArchiveProject)
}

func (s *Server) unarchiveForm(w http.ResponseWriter, r *http.Request) error {
	return s.setActive(w, r, s.store.RestoreProject)
}

func (s *Server) setActive(w http.ResponseWriter, r *http.Request, set func(ctx context.Context, slug string) (board.Project, error)) error {
	p, err := set(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	next := "/p/" + p.Slug + "/settings"
	if r.PostFormValue("back") == "board" {
		next = "/p/" + p.Slug
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
	return nil
}
