package openai

import (
	"context"
	"net/http"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

var (
	_ llm.Lister = (*Model)(nil)
	_ llm.Lister = (*ResponsesModel)(nil)
)

// ListModels asks GET {base}/models for the models the server serves
// ({"object": "list", "data": [{"id": …}]}), with the key and headers chat
// completions get. It costs no tokens.
func (m *Model) ListModels(ctx context.Context) (llm.Listing, error) {
	return listModels(ctx, m.cfg, m.redact)
}

// ListModels asks GET {base}/models, as [Model.ListModels] does.
func (m *ResponsesModel) ListModels(ctx context.Context) (llm.Listing, error) {
	return listModels(ctx, m.cfg, m.redact)
}

func listModels(ctx context.Context, cfg Config, redact *llm.Redactor) (llm.Listing, error) {
	url := strings.TrimRight(cfg.BaseURL, "/") + "/models"
	h := http.Header{}
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "bonsai")
	llm.SetAuth(h, cfg.AuthHeader, cfg.APIKey)
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	l, err := llm.FetchListing(ctx, cfg.HTTPClient, url, h, cfg.Provider, func(resp *http.Response) error {
		return statusError(ctx, cfg.Provider, resp, url)
	})
	return l, redact.Error(err)
}
