package board

import "time"

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
	// BudgetUSD caps the spend per ticket; 0 means no cap.
	BudgetUSD float64 `json:"budgetUsd,omitempty"`
	// Verify is the command the runtime runs before a ticket may enter
	// VERIFICATION, e.g. "go test ./...".
	Verify string `json:"verify,omitempty"`
}

// Validate reports what is wrong with a project about to be created.
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
	if p.Agent.BudgetUSD < 0 {
		return Errorf(EINVALID, "budget must be 0 (no cap) or more, got %g", p.Agent.BudgetUSD)
	}
	return nil
}
