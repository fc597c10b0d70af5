package board

import (
	"encoding/json"
	"time"
)

// Project is a repository that agents work on, with its own board.
type Project struct {
	ID            string        `json:"id"`
	Slug          string        `json:"slug"`
	Name          string        `json:"name"`
	Repo          string        `json:"repo"`          // local path or git URL
	DefaultBranch string        `json:"defaultBranch"` // e.g. "main"
	Active        bool          `json:"active"`        // false once archived
	Agent         AgentSettings `json:"agent"`
	CreatedAt     time.Time     `json:"createdAt"`
	UpdatedAt     time.Time     `json:"updatedAt"`
}

// AgentSettings are the per-project settings of the agent that works it.
type AgentSettings struct {
	// Model is a "provider/model" id; empty means the configured default.
	Model string `json:"model,omitempty"`
	// BudgetUSD caps the spend per ticket. It and the other caps below
	// override the budget.* keys of config.json; 0 means the configured
	// cap (none by default).
	BudgetUSD float64 `json:"budgetUsd,omitempty"`
	// TicketTokens caps the tokens of all the runs of a ticket.
	TicketTokens int64 `json:"ticketTokens,omitempty"`
	// RunBudgetUSD and RunTokens cap one run.
	RunBudgetUSD float64 `json:"runBudgetUsd,omitempty"`
	RunTokens    int64   `json:"runTokens,omitempty"`
	// DailyBudgetUSD and DailyTokens cap the runs of the project started
	// since midnight.
	DailyBudgetUSD float64 `json:"dailyBudgetUsd,omitempty"`
	DailyTokens    int64   `json:"dailyTokens,omitempty"`
	// Verify is the command the runtime runs before a ticket may enter
	// VERIFICATION, e.g. "go test ./...".
	Verify string `json:"verify,omitempty"`
	// TakeBacklog lets agents take BACKLOG tickets by themselves once
	// nothing in RESEARCH or IN_PROGRESS is waiting: the runtime moves the
	// ticket to RESEARCH and researches it (docs/design.md §3).
	TakeBacklog bool `json:"takeBacklog,omitempty"`
	// PermissionMode is how far the agents go without a person: by
	// default they implement the plan they saved and run any command the
	// policy does not deny or hold for approval; see PermissionMode.
	PermissionMode PermissionMode `json:"permissionMode,omitempty"`
	// Allow and Ask are the project's command patterns (docs/policy.md):
	// a command matching Allow runs without asking in every mode; one
	// matching Ask needs a person's approval. Their syntax is checked by
	// the policy before they are saved.
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	// Sandbox says whether the agent's commands must run in the sandbox.
	Sandbox SandboxMode `json:"sandbox,omitempty"`
	// Network is what network the sandboxed commands reach.
	Network NetworkMode `json:"network,omitempty"`
	// AllowHosts are hosts, besides the built-in package registries and
	// the project's git remote, that commands may reach through the
	// proxy in NetworkProxy.
	AllowHosts []string `json:"allowHosts,omitempty"`

	// Land is how approved work reaches the default branch, LandStyle how
	// the merge mode joins it, and UpdateStyle how the default branch is
	// brought into the ticket branch first (docs/landing.md).
	Land        LandMode    `json:"land,omitempty"`
	LandStyle   LandStyle   `json:"landStyle,omitempty"`
	UpdateStyle UpdateStyle `json:"updateStyle,omitempty"`
	// Engine is the agent that works the tickets.
	Engine Engine `json:"engine,omitempty"`
	// EngineAuth is whose credentials the engine CLI uses: the run's
	// gateway (the default) or the person's own login (docs/engines.md).
	EngineAuth EngineAuth `json:"engineAuth,omitempty"`
	// Thinking overrides the configured thinking level of ticket runs.
	Thinking Thinking `json:"thinking,omitempty"`
	// MCPServers names the servers of config.json's mcp.servers that
	// ticket runs use.
	MCPServers []string `json:"mcpServers,omitempty"`
	// ScheduleTools gives the agents the board tools that create, list
	// and cancel the project's schedules.
	ScheduleTools bool `json:"scheduleTools,omitempty"`
	// MaxAgents caps the project's tickets worked at once, each in its
	// own worktree; 0 means DefaultMaxAgents (Agents).
	MaxAgents int64 `json:"maxAgents,omitempty"`

	// The sandbox limits of the project's runs, each overriding the
	// matching limits.* key of config.json; 0 keeps it (docs/sandbox.md).
	LimitMemoryMiB     int64 `json:"limitMemoryMib,omitempty"`
	LimitProcesses     int64 `json:"limitProcesses,omitempty"`
	LimitTmpMiB        int64 `json:"limitTmpMib,omitempty"`
	LimitFileSizeMiB   int64 `json:"limitFileSizeMib,omitempty"`
	LimitDiskGrowthMiB int64 `json:"limitDiskGrowthMib,omitempty"`

	// The project's issue tracker and the query of the issues that become
	// its tickets (docs/trackers.md).
	Tracker         TrackerKind `json:"tracker,omitempty"`
	TrackerLabels   []string    `json:"trackerLabels,omitempty"`
	TrackerAssignee string      `json:"trackerAssignee,omitempty"`
	TrackerTeam     string      `json:"trackerTeam,omitempty"`
	TrackerStates   []string    `json:"trackerStates,omitempty"`
	TrackerJQL      string      `json:"trackerJql,omitempty"`
	TrackerSite     string      `json:"trackerSite,omitempty"`
	TrackerEmail    string      `json:"trackerEmail,omitempty"`

	// Unknown holds the stored settings this version does not know
	// (written by a newer one), by name, as stored: they are kept when
	// the project is saved, and reported by project show and the API.
	Unknown map[string]json.RawMessage `json:"unknownSettings,omitempty"`
}

// ValidateNew reports what is wrong with a project about to be created:
// what Validate checks, and a slug new projects may take.
func (p Project) ValidateNew() error {
	if err := ValidateNewSlug(p.Slug); err != nil {
		return err
	}
	return p.Validate()
}

// Validate reports what is wrong with a project, as stored or changed.
func (p Project) Validate() error {
	if err := ValidateSlug(p.Slug); err != nil {
		return err
	}
	if err := validateText("project name", p.Name, 100); err != nil {
		return err
	}
	if p.Repo == "" {
		return Errorf(EINVALID, "project repo is required (a local path or a git URL)")
	}
	if err := ValidateBranch(p.DefaultBranch); err != nil {
		return err
	}
	if err := ValidateModelID(p.Agent.Model); err != nil {
		return err
	}
	a := p.Agent
	if err := a.validateSafety(); err != nil {
		return err
	}
	if err := a.validateWork(); err != nil {
		return err
	}
	if err := a.validateTracker(); err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		v    float64
	}{
		{"budget", a.BudgetUSD}, {"ticket tokens", float64(a.TicketTokens)},
		{"run budget", a.RunBudgetUSD}, {"run tokens", float64(a.RunTokens)},
		{"daily budget", a.DailyBudgetUSD}, {"daily tokens", float64(a.DailyTokens)},
	} {
		if c.v < 0 {
			return Errorf(EINVALID, "%s must be 0 (the configured cap) or more, got %g", c.name, c.v)
		}
	}
	for _, s := range Settings {
		if err := s.checkIn(a); err != nil {
			return err
		}
	}
	return nil
}
