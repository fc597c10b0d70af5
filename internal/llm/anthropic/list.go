package anthropic

import (
	"context"
	"net/http"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

var _ llm.Lister = (*Model)(nil)

// ListModels asks the Models API (GET /v1/models) for the first page of
// models (up to 1000), with the key and headers the Messages API gets. It
// costs no tokens.
func (m *Model) ListModels(ctx context.Context) (llm.Listing, error) {
	url := strings.TrimRight(m.cfg.BaseURL, "/") + "/v1/models?limit=1000"
	h := http.Header{}
	h.Set("Accept", "application/json")
	h.Set("Anthropic-Version", apiVersion)
	h.Set("User-Agent", "bonsai")
	llm.SetAuth(h, m.cfg.AuthHeader, m.cfg.APIKey)
	l, err := llm.FetchListing(ctx, m.cfg.HTTPClient, url, h, m.cfg.Provider, func(resp *http.Response) error {
		return statusError(ctx, m.cfg.Provider, resp, url)
	})
	return l, m.redact.Error(err)
}
