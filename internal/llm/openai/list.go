package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

var _ llm.Lister = (*Model)(nil)

// maxListBody bounds the size of a model list.
const maxListBody = 4 << 20

// listBody is the answer of GET {base}/models: {"object": "list", "data":
// [{"id": …, "object": "model", …}]}.
type listBody struct {
	Data []struct {
		ID string `json:"id"`
	} `json:"data"`
}

// ListModels asks GET {base}/models for the models the server serves,
// with the key and headers chat completions get. It costs no tokens.
func (m *Model) ListModels(ctx context.Context) (llm.Listing, error) {
	url := strings.TrimRight(m.cfg.BaseURL, "/") + "/models"
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return llm.Listing{}, m.redact.Error(&llm.Error{Kind: llm.KindInvalidRequest, Provider: m.cfg.Provider, Message: err.Error(), Err: err})
	}
	h := hreq.Header
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "bonsai")
	if m.cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+m.cfg.APIKey)
	}
	for k, v := range m.cfg.Headers {
		h.Set(k, v)
	}
	resp, err := m.cfg.HTTPClient.Do(hreq)
	if err != nil {
		return llm.Listing{}, m.redact.Error(llm.TransportError(ctx, m.cfg.Provider, "model list", err))
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return llm.Listing{}, m.redact.Error(statusError(ctx, m.cfg.Provider, resp, url))
	}
	var body listBody
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxListBody)).Decode(&body); err != nil {
		return llm.Listing{}, m.redact.Error(llm.TransportError(ctx, m.cfg.Provider, "model list", err))
	}
	l := llm.Listing{Date: llm.ResponseDate(resp.Header), Models: make([]string, 0, len(body.Data))}
	for _, d := range body.Data {
		l.Models = append(l.Models, d.ID)
	}
	return l, nil
}
