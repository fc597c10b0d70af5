package provider

import (
	"context"
	"os"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// ListModels asks the provider of the model id for its models, and returns
// them with the base URL it asked, using the key, base URL and headers Resolve would use: a request that costs no
// tokens, made once, without retries, so that `bonsai doctor` learns at
// once whether the provider is reachable and accepts the key. ctx bounds
// it. Without a key the error is Resolve's; a refused key is a KindAuth
// [*llm.Error] carrying the provider's message.
func ListModels(ctx context.Context, id string, opts Options) (llm.Listing, string, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	mid, p, key, err := locate(id, opts.APIKey, getenv)
	if err != nil {
		return llm.Listing{}, "", err
	}
	base := firstNonEmpty(opts.BaseURL, getenv(p.BaseURLEnv), p.DefaultBaseURL)
	m, err := adapter(p, mid, key, base, llm.Info{}, opts, 0, 0)
	if err != nil {
		return llm.Listing{}, base, err
	}
	lister, ok := m.(llm.Lister)
	if !ok {
		return llm.Listing{}, base, &llm.Error{Kind: llm.KindInvalidRequest, Provider: p.Name, Message: "its adapter cannot list models"}
	}
	l, err := lister.ListModels(ctx)
	return l, base, err
}
