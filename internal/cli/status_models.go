package cli

import (
	"slices"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/engine"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
	"github.com/bonsai-run/bonsai/internal/view"
)

// modelStatuses checks, for every model the active projects use (their own
// or config.json's default), that agents could reach it (a key set through
// getenv, a known provider) and that the catalog prices it, and where its
// key comes from (source gives "environment", "stored" or "" for a
// provider name): view.ModelStatuses with llm/provider's check. A project
// whose engine uses the person's own login needs no key of Bonsai's and is
// left out (doctor checks its login). It makes no request.
func modelStatuses(getenv func(string) string, source func(string) string, cfg config.Config, projects []board.Project) []view.ModelStatus {
	keyed := slices.DeleteFunc(slices.Clone(projects), engine.UsesLogin)
	return view.ModelStatuses(keyed, cfg.Model, view.ModelChecks{
		Problem: func(id string) string {
			if err := llmprovider.Check(id, getenv); err != nil {
				return cmdkit.LLMMessage(err)
			}
			return ""
		},
		KeySource: source,
		Unpriced:  cfg.Prices().Unpriced,
	})
}
