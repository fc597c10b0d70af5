package cli

import (
	"fmt"

	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/catalog"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
)

// modelCatalog returns the embedded model catalog with cfg's models
// settings applied.
func modelCatalog(cfg config.Config) (*catalog.Catalog, error) {
	cat, err := catalog.New(cfg.CatalogOverrides())
	if err != nil {
		return nil, fmt.Errorf("config.json: %w", err)
	}
	return cat, nil
}

// modelResolver turns a "provider/model" id into a Model (with retries)
// and its Info, plus a warning for a model the catalog does not know.
type modelResolver func(id string) (llm.Model, llm.Info, string, error)

// envModels resolves models through llm/provider: keys and base URLs from
// the environment, limits and prices from the catalog (the embedded one
// with config.json's models settings). Without a key the error names the
// variable to set; a malformed id or an unknown provider is a usage error.
//
// Every error the models return has the secrets of redact hidden; opts
// gives the key and base URL of --api-key and --base-url (over the
// environment's), config.json's reasoning summary setting and where the
// models' notices go.
func envModels(getenv func(string) string, cat *catalog.Catalog, redact *llm.Redactor, opts llmprovider.Options) modelResolver {
	return func(id string) (llm.Model, llm.Info, string, error) {
		r, err := llmprovider.Resolve(id, llmprovider.Options{Getenv: getenv, Catalog: cat, Redactor: redact,
			APIKey: opts.APIKey, BaseURL: opts.BaseURL, ReasoningSummary: opts.ReasoningSummary, Warn: opts.Warn})
		if err != nil {
			switch llm.KindOf(err) {
			case llm.KindInvalidRequest:
				return nil, llm.Info{}, "", usagef("model %s: %s", id, cmdkit.LLMMessage(err))
			case llm.KindAuth:
				return nil, llm.Info{}, "", fmt.Errorf("model %s: %s; or choose another model with --model or 'bonsai config set model'", id, cmdkit.LLMMessage(err))
			}
			return nil, llm.Info{}, "", err
		}
		return r.Model, r.Info, r.Warning, nil
	}
}
