package view

import (
	"slices"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// ModelChecks are what ModelStatuses asks of each model id, none of them
// making a request.
type ModelChecks struct {
	// Problem says why agents could not use the model (no key set, an
	// unknown provider); "" when they could.
	Problem func(id string) string
	// KeySource says where a provider's key comes from: "environment",
	// "stored" or "".
	KeySource func(provider string) string
	// Unpriced reports a model the catalog has no price for.
	Unpriced func(id string) bool
}

// ModelStatuses lists, once each, the models the active projects of
// projects use (their own, or defaultModel), with the projects using it,
// what keeps agents from it, where its key comes from and whether the
// catalog prices it. It is never nil.
func ModelStatuses(projects []board.Project, defaultModel string, c ModelChecks) []ModelStatus {
	out := []ModelStatus{}
	for _, p := range projects {
		if !p.Active {
			continue
		}
		id := p.Agent.Model
		if id == "" {
			id = defaultModel
		}
		i := slices.IndexFunc(out, func(m ModelStatus) bool { return m.Model == id })
		if i < 0 {
			m := ModelStatus{Model: id, Problem: c.Problem(id)}
			if mid, err := llm.ParseModelID(id); err == nil && m.Problem == "" {
				m.KeySource = c.KeySource(mid.Provider)
			}
			m.Unpriced = c.Unpriced(id)
			out = append(out, m)
			i = len(out) - 1
		}
		out[i].Projects = append(out[i].Projects, p.Slug)
	}
	return out
}
