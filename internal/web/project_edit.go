package web

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// projectEdit is a change to a project's settings, as PATCH
// /api/projects/{slug} takes it and the project settings form gives it;
// nil fields are kept. The API's JSON gives the name, repo and branch
// here and every setting of board.Settings in Settings (splitSettings);
// the form gives the typed fields below them.
type projectEdit struct {
	Name           *string  `json:"name"`
	Repo           *string  `json:"repo"`
	DefaultBranch  *string  `json:"defaultBranch"`
	Model          *string  `json:"-"`
	Verify         *string  `json:"-"`
	BudgetUSD      *float64 `json:"-"`
	TicketTokens   *int64   `json:"-"`
	RunBudgetUSD   *float64 `json:"-"`
	RunTokens      *int64   `json:"-"`
	DailyBudgetUSD *float64 `json:"-"`
	DailyTokens    *int64   `json:"-"`
	TakeBacklog    *bool    `json:"-"`
	// PermissionMode is "auto" (or ""), "plan", "ask" or "read-only"
	// (board.ParsePermissionMode).
	PermissionMode *board.PermissionMode `json:"-"`
	// Allow and Ask are command patterns (policy.ParsePattern), AllowHosts
	// host patterns (board.ValidateHostPattern); each list replaces the
	// project's, and an empty list clears it.
	Allow *[]string `json:"-"`
	Ask   *[]string `json:"-"`
	// Sandbox is "required" (or "") or "off"; Network "proxy" (or ""),
	// "none" or "all".
	Sandbox    *board.SandboxMode `json:"-"`
	Network    *board.NetworkMode `json:"-"`
	AllowHosts *[]string          `json:"-"`
	// How work lands, which engine works it, how hard it thinks
	// (board.ParseLandMode and the others; "" is the default), the MCP
	// servers ticket runs use and whether agents manage schedules.
	Land          *string   `json:"-"`
	LandStyle     *string   `json:"-"`
	UpdateStyle   *string   `json:"-"`
	Engine        *string   `json:"-"`
	Thinking      *string   `json:"-"`
	MCPServers    *[]string `json:"-"`
	ScheduleTools *bool     `json:"-"`
	// Settings are the other settings of board.Settings, by name, as
	// splitSettings decodes them.
	Settings map[string]any `json:"-"`
}

// isEmpty reports whether e gives no field at all.
func (e projectEdit) isEmpty() bool {
	if len(e.Settings) > 0 {
		return false
	}
	e.Settings = nil
	return reflect.ValueOf(e).IsZero()
}

// projectFields are the fields of projectEdit in the order the form shows
// them, then the other settings of board.Settings in table order; "form"
// is an error about no field in particular.
var projectFields = func() []string {
	fields := []string{"name", "repo", "defaultBranch", "model", "verify", "budgetUsd", "ticketTokens",
		"runBudgetUsd", "runTokens", "dailyBudgetUsd", "dailyTokens", "takeBacklog", "permissionMode",
		"allow", "ask", "sandbox", "network", "allowHosts",
		"land", "landStyle", "updateStyle", "engine", "thinking", "mcpServers", "scheduleTools"}
	for _, s := range board.Settings {
		if !slices.Contains(fields, s.Name) {
			fields = append(fields, s.Name)
		}
	}
	return append(fields, "form")
}()

// fieldErrors maps a field of projectEdit to what is wrong with its value.
type fieldErrors map[string]string

// err returns the first field's error, in form order, as an EINVALID
// error; nil when there is none.
func (fe fieldErrors) err() error {
	for _, f := range projectFields {
		if m, ok := fe[f]; ok {
			return board.Errorf(board.EINVALID, "%s", m)
		}
	}
	return nil
}

// planProjectEdit checks e against the project as it is and returns the
// update holding only the fields that change. Each field is checked on its
// own, so a person sees every field's problem at once, not only the first.
func (s *Server) planProjectEdit(ctx context.Context, cur board.Project, e projectEdit) (board.ProjectPatch, fieldErrors) {
	var u board.ProjectPatch
	errs := fieldErrors{}
	// valid applies one field's change to the stored project, which is
	// valid, and validates the result: an error is about that field.
	valid := func(field string, apply func(p *board.Project)) bool {
		p := cur
		apply(&p)
		if err := p.Validate(); err != nil {
			errs[field] = err.Error()
			return false
		}
		return true
	}
	text := func(field string, v *string, old string, apply func(p *board.Project, v string), dst **string) {
		if v == nil {
			return
		}
		t := strings.TrimSpace(*v)
		if t != old && valid(field, func(p *board.Project) { apply(p, t) }) {
			*dst = &t
		}
	}
	text("name", e.Name, cur.Name, func(p *board.Project, v string) { p.Name = v }, &u.Name)
	text("defaultBranch", e.DefaultBranch, cur.DefaultBranch, func(p *board.Project, v string) { p.DefaultBranch = v }, &u.DefaultBranch)
	text("model", e.Model, cur.Agent.Model, func(p *board.Project, v string) { p.Agent.Model = v }, &u.Model)
	text("verify", e.Verify, cur.Agent.Verify, func(p *board.Project, v string) { p.Agent.Verify = v }, &u.Verify)
	if u.Model != nil && *u.Model != "" && s.opts.CheckModel != nil {
		if err := s.opts.CheckModel(*u.Model); err != nil {
			errs["model"] = err.Error()
			u.Model = nil
		}
	}
	if e.Repo != nil && strings.TrimSpace(*e.Repo) != cur.Repo {
		if repo, err := s.checkRepo(*e.Repo); err != nil {
			errs["repo"] = err.Error()
		} else if repo != cur.Repo {
			u.Repo = &repo
		}
	}
	if u.DefaultBranch != nil && s.opts.Branch != nil {
		// A new default branch must be in the (new) repository, as
		// `bonsai project edit --branch` checks.
		repo := cur.Repo
		if u.Repo != nil {
			repo = *u.Repo
		}
		if _, err := s.opts.Branch(ctx, repo, *u.DefaultBranch); err != nil {
			errs["defaultBranch"] = err.Error()
			u.DefaultBranch = nil
		}
	}

	usd := func(field, what string, v *float64, old float64, apply func(p *board.Project, v float64), dst **float64) {
		switch {
		case v == nil || *v == old:
		case math.IsNaN(*v) || math.IsInf(*v, 0):
			errs[field] = what + " must be a number of dollars, e.g. 2.50"
		case valid(field, func(p *board.Project) { apply(p, *v) }):
			*dst = v
		}
	}
	tokens := func(field string, v *int64, old int64, apply func(p *board.Project, v int64), dst **int64) {
		if v != nil && *v != old && valid(field, func(p *board.Project) { apply(p, *v) }) {
			*dst = v
		}
	}
	usd("budgetUsd", "budget", e.BudgetUSD, cur.Agent.BudgetUSD, func(p *board.Project, v float64) { p.Agent.BudgetUSD = v }, &u.BudgetUSD)
	tokens("ticketTokens", e.TicketTokens, cur.Agent.TicketTokens, func(p *board.Project, v int64) { p.Agent.TicketTokens = v }, &u.TicketTokens)
	usd("runBudgetUsd", "run budget", e.RunBudgetUSD, cur.Agent.RunBudgetUSD, func(p *board.Project, v float64) { p.Agent.RunBudgetUSD = v }, &u.RunBudgetUSD)
	tokens("runTokens", e.RunTokens, cur.Agent.RunTokens, func(p *board.Project, v int64) { p.Agent.RunTokens = v }, &u.RunTokens)
	usd("dailyBudgetUsd", "daily budget", e.DailyBudgetUSD, cur.Agent.DailyBudgetUSD, func(p *board.Project, v float64) { p.Agent.DailyBudgetUSD = v }, &u.DailyBudgetUSD)
	tokens("dailyTokens", e.DailyTokens, cur.Agent.DailyTokens, func(p *board.Project, v int64) { p.Agent.DailyTokens = v }, &u.DailyTokens)
	if e.TakeBacklog != nil && *e.TakeBacklog != cur.Agent.TakeBacklog {
		u.TakeBacklog = e.TakeBacklog
	}
	if e.PermissionMode != nil {
		if m, err := board.ParsePermissionMode(string(*e.PermissionMode)); err != nil {
			errs["permissionMode"] = err.Error()
		} else if m != cur.Agent.PermissionMode {
			u.PermissionMode = &m
		}
	}
	planSafety(cur, e, &u, errs, valid)
	planWork(cur, e, &u, errs)
	planSettings(cur, s.cleanSettings(e.Settings, errs), &u, errs)
	return u, errs
}

// editProject applies a person's change to project slug and returns the
// project as it is afterwards. A change that changes nothing writes
// nothing. An invalid field is an EINVALID error naming the first one, in
// form order.
func (s *Server) editProject(ctx context.Context, slug string, e projectEdit) (board.Project, error) {
	if e.isEmpty() {
		return board.Project{}, board.Errorf(board.EINVALID, "nothing to change; give at least one of %s",
			strings.Join(projectFields[:len(projectFields)-1], ", "))
	}
	cur, err := s.store.Project(ctx, slug)
	if err != nil {
		return board.Project{}, err
	}
	u, errs := s.planProjectEdit(ctx, cur, e)
	if err := errs.err(); err != nil {
		return board.Project{}, err
	}
	if u.IsZero() {
		return cur, nil
	}
	return s.store.UpdateProject(ctx, slug, u)
}
