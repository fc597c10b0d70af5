package cli

import (
	"github.com/bonsai-run/bonsai/internal/llm"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
)

// modelResolver turns a "provider/model" id into a Model (with retries)
// and its Info, plus a warning for a model the catalog does not know.
type modelResolver func(id string) (llm.Model, llm.Info, string, error)

// envModels resolves models through llm/provider: keys and base URLs from
// the environment, limits and prices from the embedded catalog. Without a
// key the error names the variable to set; a malformed id or an unknown
// provider is a usage error.
func envModels(getenv func(string) string) modelResolver {
	return func(id string) (llm.Model, llm.Info, string, error) {
		r, err := llmprovider.Resolve(id, llmprovider.Options{Getenv: getenv})
		if err != nil {
			if llm.KindOf(err) == llm.KindInvalidRequest {
				return nil, llm.Info{}, "", usagef("model %s: %v", id, err)
			}
			return nil, llm.Info{}, "", err
		}
		return r.Model, r.Info, r.Warning, nil
	}
}
