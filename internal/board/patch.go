package board

import (
	"slices"
	"time"
)

// ProjectPatch holds the project fields to change; nil fields are kept.
// The CLI's `project edit`, the web settings page and the API build one;
// every store applies it with Apply, so the rules live here once.
type ProjectPatch struct {
	Name          *string
	Repo          *string
	DefaultBranch *string
	Model         *string
	BudgetUSD     *float64
	Verify        *string
	// The other caps of AgentSettings.
	TicketTokens   *int64
	RunBudgetUSD   *float64
	RunTokens      *int64
	DailyBudgetUSD *float64
	DailyTokens    *int64
	// TakeBacklog is AgentSettings.TakeBacklog.
	TakeBacklog *bool
	// PermissionMode is AgentSettings.PermissionMode.
	PermissionMode *PermissionMode
	// The command policy and sandbox settings of AgentSettings; a list
	// replaces the whole list.
	Allow      *[]string
	Ask        *[]string
	Sandbox    *SandboxMode
	Network    *NetworkMode
	AllowHosts *[]string
	// The landing, engine, thinking, MCP and schedule settings of
	// AgentSettings.
	Land          *LandMode
	LandStyle     *LandStyle
	UpdateStyle   *UpdateStyle
	Engine        *Engine
	Thinking      *Thinking
	MCPServers    *[]string
	ScheduleTools *bool
	// Settings sets agent settings by name (Setting.Name) to values of the
	// type Setting.Get returns. The CLI, the API and the web form set
	// every setting here; the fields above are for Go callers.
	Settings map[string]any
}

// IsZero reports whether the patch changes nothing, whatever the project.
func (pp ProjectPatch) IsZero() bool {
	return len(pp.Settings) == 0 && pp.Name == nil && pp.Repo == nil && pp.DefaultBranch == nil &&
		pp.Model == nil && pp.BudgetUSD == nil && pp.Verify == nil && pp.TicketTokens == nil &&
		pp.RunBudgetUSD == nil && pp.RunTokens == nil && pp.DailyBudgetUSD == nil && pp.DailyTokens == nil &&
		pp.TakeBacklog == nil && pp.PermissionMode == nil && pp.Allow == nil && pp.Ask == nil &&
		pp.Sandbox == nil && pp.Network == nil && pp.AllowHosts == nil && pp.Land == nil &&
		pp.LandStyle == nil && pp.UpdateStyle == nil && pp.Engine == nil && pp.Thinking == nil &&
		pp.MCPServers == nil && pp.ScheduleTools == nil
}

// Apply sets the patch's fields on p and returns the names of the fields
// that changed, as events record them. When something changed, the result
// must be a valid project; on error p is left as it was.
func (pp ProjectPatch) Apply(p *Project) ([]string, error) {
	next := *p
	var ch changes
	setField(&ch, "name", &next.Name, pp.Name)
	setField(&ch, "repo", &next.Repo, pp.Repo)
	setField(&ch, "defaultBranch", &next.DefaultBranch, pp.DefaultBranch)
	setField(&ch, "model", &next.Agent.Model, pp.Model)
	setField(&ch, "verify", &next.Agent.Verify, pp.Verify)
	setField(&ch, "budgetUsd", &next.Agent.BudgetUSD, pp.BudgetUSD)
	setField(&ch, "ticketTokens", &next.Agent.TicketTokens, pp.TicketTokens)
	setField(&ch, "runBudgetUsd", &next.Agent.RunBudgetUSD, pp.RunBudgetUSD)
	setField(&ch, "runTokens", &next.Agent.RunTokens, pp.RunTokens)
	setField(&ch, "dailyBudgetUsd", &next.Agent.DailyBudgetUSD, pp.DailyBudgetUSD)
	setField(&ch, "dailyTokens", &next.Agent.DailyTokens, pp.DailyTokens)
	setField(&ch, "takeBacklog", &next.Agent.TakeBacklog, pp.TakeBacklog)
	setField(&ch, "permissionMode", &next.Agent.PermissionMode, pp.PermissionMode)
	setList(&ch, "allow", &next.Agent.Allow, pp.Allow)
	setList(&ch, "ask", &next.Agent.Ask, pp.Ask)
	setField(&ch, "sandbox", &next.Agent.Sandbox, pp.Sandbox)
	setField(&ch, "network", &next.Agent.Network, pp.Network)
	setList(&ch, "allowHosts", &next.Agent.AllowHosts, pp.AllowHosts)
	setField(&ch, "land", &next.Agent.Land, pp.Land)
	setField(&ch, "landStyle", &next.Agent.LandStyle, pp.LandStyle)
	setField(&ch, "updateStyle", &next.Agent.UpdateStyle, pp.UpdateStyle)
	setField(&ch, "engine", &next.Agent.Engine, pp.Engine)
	setField(&ch, "thinking", &next.Agent.Thinking, pp.Thinking)
	setList(&ch, "mcpServers", &next.Agent.MCPServers, pp.MCPServers)
	setField(&ch, "scheduleTools", &next.Agent.ScheduleTools, pp.ScheduleTools)
	more, err := SetSettings(&next.Agent, pp.Settings)
	if err != nil {
		return nil, err
	}
	for _, name := range more {
		if !slices.Contains(ch, name) {
			ch = append(ch, name)
		}
	}
	if len(ch) == 0 {
		return nil, nil
	}
	if err := next.Validate(); err != nil {
		return nil, err
	}
	*p = next
	return ch, nil
}

// TicketPatch holds the ticket fields to change; nil fields are kept.
type TicketPatch struct {
	Title       *string
	Description *string
	Criteria    *[]string
	Plan        *string
	Priority    *int
	Branch      *string
	// IfUpdatedAt, when set, makes the patch conditional: it is refused
	// with ECONFLICT, changing nothing, unless the ticket's updated time is
	// still this one. A person's edit carries the version they saw, so
	// nobody overwrites a change they did not see.
	IfUpdatedAt *time.Time
}

// IsZero reports whether the patch changes nothing, whatever the ticket.
func (tp TicketPatch) IsZero() bool {
	return tp.Title == nil && tp.Description == nil && tp.Criteria == nil && tp.Plan == nil &&
		tp.Priority == nil && tp.Branch == nil && tp.IfUpdatedAt == nil
}

// Apply sets the patch's fields on t and returns the names of the fields
// that changed. A stale IfUpdatedAt is refused with ECONFLICT; when
// something changed, the result must be a valid ticket. On error t is left
// as it was.
func (tp TicketPatch) Apply(t *Ticket) ([]string, error) {
	if tp.IfUpdatedAt != nil && !t.UpdatedAt.Equal(*tp.IfUpdatedAt) {
		return nil, Errorf(ECONFLICT, "ticket %s changed since %s (it was updated %s)",
			t.Ref(), tp.IfUpdatedAt.UTC().Format(time.RFC3339Nano), t.UpdatedAt.UTC().Format(time.RFC3339Nano))
	}
	next := *t
	var ch changes
	setField(&ch, "title", &next.Title, tp.Title)
	setField(&ch, "description", &next.Description, tp.Description)
	setField(&ch, "plan", &next.Plan, tp.Plan)
	setField(&ch, "branch", &next.Branch, tp.Branch)
	setField(&ch, "priority", &next.Priority, tp.Priority)
	if tp.Criteria != nil && !slices.Equal(*tp.Criteria, t.Criteria) {
		next.Criteria = slices.Clone(*tp.Criteria)
		if next.Criteria == nil {
			next.Criteria = []string{}
		}
		ch = append(ch, "criteria")
	}
	if len(ch) == 0 {
		return nil, nil
	}
	if err := next.Validate(); err != nil {
		return nil, err
	}
	*t = next
	return ch, nil
}

// changes lists the names of the fields a patch changed.
type changes []string

// setList sets *dst to a copy of *v when v is set and differs, noting
// field. An empty list becomes nil, as stores read it back.
func setList(ch *changes, field string, dst *[]string, v *[]string) {
	if v == nil || slices.Equal(*v, *dst) {
		return
	}
	*dst = nil
	if len(*v) > 0 {
		*dst = slices.Clone(*v)
	}
	*ch = append(*ch, field)
}

// setField sets *dst to *v when v is set and differs, noting field.
func setField[T comparable](ch *changes, field string, dst *T, v *T) {
	if v != nil && *v != *dst {
		*dst = *v
		*ch = append(*ch, field)
	}
}
