package cli

import (
	"slices"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/llm"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
	"github.com/bonsai-run/bonsai/internal/view"
)

// modelStatuses checks, for every model the active projects use (their own
// or config.json's default), that agents could reach it (a key set, a
// known provider) and that the catalog prices it, and where its key comes
// from (source gives "environment", "stored" or "" for a provider name).
// It makes no request.
func modelStatuses(getenv func(string) string, source func(string) string, cfg config.Config, projects []board.Project) []view.ModelStatus {
	defaultModel := cfg.Model
	prices := cfg.Prices()
	var out []view.ModelStatus
	for _, p := range projects {
		if !p.Active {
			continue
		}
		id := p.Agent.Model
		if id == "" {
			id = defaultModel
		}
		i := slices.IndexFunc(out, func(m view.ModelStatus) bool { return m.Model == id })
		if i < 0 {
			m := view.ModelStatus{Model: id}
			if err := llmprovider.Check(id, getenv); err != nil {
				m.Problem = llmMessage(err)
			}
			if mid, err := llm.ParseModelID(id); err == nil && m.Problem == "" {
				m.KeySource = source(mid.Provider)
			}
			m.Unpriced = prices.Unpriced(id)
			out = append(out, m)
			i = len(out) - 1
		}
		out[i].Projects = append(out[i].Projects, p.Slug)
	}
	if out == nil {
		out = []view.ModelStatus{}
	}
	return out
}
