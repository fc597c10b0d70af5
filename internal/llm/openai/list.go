package openai

import (
	"context"
	"net/http"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

var _ llm.Lister = (*Model)(nil)

// ListModels asks GET {base}/models for the models the server serves
// ({"object": "list", "data": [{"id": …}]}), with the key and headers chat
// completions get. It costs no tokens.
func (m *Model) ListModels(ctx context.Context) (llm.Listing, error) {
	url := strings.TrimRight(m.cfg.BaseURL, "/") + "/models"
	h := http.Header{}
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "bonsai")
	if m.cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+m.cfg.APIKey)
	}
	for k, v := range m.cfg.Headers {
		h.Set(k, v)
	}
	l, err := llm.FetchListing(ctx, m.cfg.HTTPClient, url, h, m.cfg.Provider, func(resp *http.Response) error {
		return statusError(ctx, m.cfg.Provider, resp, url)
	})
	return l, m.redact.Error(err)
}
