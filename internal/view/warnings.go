package view

import (
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// SandboxOffRisk is the sentence status and the web UI show about a
// project whose sandbox is off.
const SandboxOffRisk = "Commands run on the host as you, without the sandbox"

// WarningSandboxOff is the Kind of a Warning about a project whose
// commands run outside the sandbox (board.SandboxOff).
const WarningSandboxOff = "sandbox-off"

// Warning is a project setting people should know is unsafe, as status
// lists it.
type Warning struct {
	Project string `json:"project"` // the project's slug
	Kind    string `json:"kind"`    // WarningSandboxOff
	Message string `json:"message"` // what it means and how to change it
}

// SafetyWarnings lists the warnings about the active projects of ps, in
// their order; an empty list, not nil, when there are none.
func SafetyWarnings(ps []board.Project) []Warning {
	out := []Warning{}
	for _, p := range ps {
		if p.Active && p.Agent.Sandbox == board.SandboxOff {
			out = append(out, Warning{Project: p.Slug, Kind: WarningSandboxOff,
				Message: fmt.Sprintf("%s: the sandbox is off. %s: they can read your keys and credentials, "+
					"change files outside the worktree and reach any host. Turn it on in the project's settings "+
					"or with: bonsai project edit %s --sandbox required", p.Slug, SandboxOffRisk, p.Slug)})
		}
	}
	return out
}
