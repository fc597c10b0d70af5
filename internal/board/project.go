package board

import (
	"strings"
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
	// default they implement the plan they saved; in ModePlan a person
	// approves each plan first.
	PermissionMode PermissionMode `json:"permissionMode,omitempty"`
}

// PermissionMode is how far a project's agents go without a person
// (docs/design.md §3, a project's agent settings).
type PermissionMode string

// The permission modes.
const (
	// ModeAuto: an agent moves a researched ticket to IN_PROGRESS itself,
	// once it saved a plan, and implements it.
	ModeAuto PermissionMode = ""
	// ModePlan: an agent researches and saves a plan, then asks a person to
	// approve it; only a person moves the ticket to IN_PROGRESS.
	ModePlan PermissionMode = "plan"
)

// String returns "auto" or "plan".
func (m PermissionMode) String() string {
	if m == ModeAuto {
		return "auto"
	}
	return string(m)
}

// ParsePermissionMode reads "auto" (or "") or "plan".
func ParsePermissionMode(s string) (PermissionMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return ModeAuto, nil
	case "plan":
		return ModePlan, nil
	}
	return "", Errorf(EINVALID, "permission mode %q; use auto (agents implement their plans) or plan (a person approves each plan)", s)
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
	if m := p.Agent.PermissionMode; m != ModeAuto && m != ModePlan {
		return Errorf(EINVALID, "permission mode %q; use auto (agents implement their plans) or plan (a person approves each plan)", string(m))
	}
	a := p.Agent
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
	return nil
}
