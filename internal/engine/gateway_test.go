package engine

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// The gateway forwards model requests with the key, and nothing without
// the run's token or outside the model API.
func TestGateway(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	g, err := serveGateway(Endpoint{Wire: llm.WireAnthropicMessages, Provider: "anthropic", BaseURL: srv.URL, Key: "sk-real"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	do := func(path, key string) int {
		req, _ := http.NewRequest("GET", g.endpoint.BaseURL+path, nil)
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := do("/v1/models", g.endpoint.Key); got != http.StatusOK {
		t.Errorf("models with the run's token: %d", got)
	}
	if got := do("/v1/models", "sk-real"); got != http.StatusUnauthorized {
		t.Errorf("models with another key: %d", got)
	}
	if got := do("/v1/files", g.endpoint.Key); got != http.StatusNotFound {
		t.Errorf("files with the run's token: %d", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("x-api-key") != "sk-real" {
		t.Fatalf("upstream saw %d requests (key %q)", len(reqs), reqs[0].Header.Get("x-api-key"))
	}
	if !strings.HasPrefix(g.endpoint.Key, "bonsai-run-") || strings.Contains(g.endpoint.BaseURL, srv.URL) {
		t.Errorf("the engine's endpoint %+v", g.endpoint)
	}
	g.Close()
	if _, err := http.Get(g.endpoint.BaseURL + "/v1/models"); err == nil {
		t.Error("the gateway still answers after the run")
	}
}
