package provider_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/provider"
)

// modelsServer answers GET path with body when the request carries the
// key good (as a bearer token, or in X-Api-Key for Anthropic), else with
// status 401 and refused, the way the providers do.
func modelsServer(t *testing.T, path, good, body, refused string, seen *http.Header) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*seen = r.Header.Clone()
		if r.Method != http.MethodGet || r.URL.Path != path {
			http.Error(w, "no route for "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer "+good && r.Header.Get("X-Api-Key") != good {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(refused))
			return
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The bodies below have the shape of the providers' documented answers.
const (
	anthropicModels = `{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"},` +
		`{"type":"model","id":"claude-haiku-4-5","display_name":"Claude Haiku 4.5","created_at":"2025-10-15T00:00:00Z"}],` +
		`"has_more":false,"first_id":"claude-sonnet-4-5","last_id":"claude-haiku-4-5"}`
	anthropicRefused = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011CTest"}`
	openaiModels     = `{"object":"list","data":[{"id":"gpt-5","object":"model","created":1754425777,"owned_by":"system"},` +
		`{"id":"gpt-5-mini","object":"model","created":1754425928,"owned_by":"system"}]}`
	openaiRefused = `{"error":{"message":"Incorrect API key provided: wrong. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
)

func TestListModels(t *testing.T) {
	tests := []struct {
		id, keyEnv, baseEnv, suffix, path, body, refused, header string
		want                                                     []string
	}{
		{"anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "", "/v1/models", anthropicModels, anthropicRefused,
			"Anthropic-Version", []string{"claude-sonnet-4-5", "claude-haiku-4-5"}},
		{"openai/gpt-5", "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1", "/v1/models", openaiModels, openaiRefused,
			"User-Agent", []string{"gpt-5", "gpt-5-mini"}},
		{"openrouter/openai/gpt-5", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "/api/v1", "/api/v1/models", openaiModels, openaiRefused,
			"X-Title", []string{"gpt-5", "gpt-5-mini"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			var seen http.Header
			srv := modelsServer(t, tt.path, "k1", tt.body, tt.refused, &seen)
			vars := map[string]string{tt.keyEnv: "k1", tt.baseEnv: srv.URL + tt.suffix}
			ctx := context.Background()
			before := time.Now().Add(-time.Second)
			l, base, err := provider.ListModels(ctx, tt.id, provider.Options{Getenv: env(vars)})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(l.Models, ",") != strings.Join(tt.want, ",") || base != srv.URL+tt.suffix {
				t.Errorf("listing = %v from %s, want %v from %s", l.Models, base, tt.want, srv.URL+tt.suffix)
			}
			if l.Date.Before(before.Truncate(time.Second)) || l.Date.After(time.Now()) {
				t.Errorf("Date = %v, want the server's clock (now)", l.Date)
			}
			if seen.Get(tt.header) == "" {
				t.Errorf("request lacks the adapter's %s header: %v", tt.header, seen)
			}

			vars[tt.keyEnv] = "wrong"
			_, _, err = provider.ListModels(ctx, tt.id, provider.Options{Getenv: env(vars)})
			var le *llm.Error
			if llm.KindOf(err) != llm.KindAuth || !errors.As(err, &le) || le.Status != http.StatusUnauthorized {
				t.Fatalf("refused key: err = %v, want a 401 auth error", err)
			}
			if !strings.Contains(le.Message, "key") {
				t.Errorf("message %q is not the provider's", le.Message)
			}
		})
	}
}

func TestListModels_RefusedKeyIsRedacted(t *testing.T) {
	var seen http.Header
	srv := modelsServer(t, "/v1/models", "k1", openaiModels, `{"error":{"message":"Incorrect API key provided: sk-secret-0123","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, &seen)
	vars := map[string]string{"OPENAI_API_KEY": "sk-secret-0123", "OPENAI_BASE_URL": srv.URL + "/v1"}
	_, _, err := provider.ListModels(context.Background(), "openai/gpt-5", provider.Options{Getenv: env(vars)})
	if llm.KindOf(err) != llm.KindAuth {
		t.Fatalf("err = %v, want an auth error", err)
	}
	if strings.Contains(err.Error(), "sk-secret-0123") {
		t.Errorf("the error shows the key: %v", err)
	}
}

func TestListModels_NoKeyAndUnreachable(t *testing.T) {
	_, _, err := provider.ListModels(context.Background(), "anthropic/claude-sonnet-4-5", provider.Options{Getenv: env(nil)})
	if llm.KindOf(err) != llm.KindAuth || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("no key: err = %v", err)
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, base, err := provider.ListModels(context.Background(), "ollama/qwen3:8b", provider.Options{Getenv: env(map[string]string{"OLLAMA_BASE_URL": url + "/v1"})})
	if llm.KindOf(err) != llm.KindTransport || base != url+"/v1" {
		t.Errorf("closed server: err = %v (kind %v), base %s", err, llm.KindOf(err), base)
	}
}

func TestListing_Has(t *testing.T) {
	l := llm.Listing{Models: []string{"claude-sonnet-4-5", "models/gemini-2.5-flash"}}
	for name, want := range map[string]bool{"claude-sonnet-4-5": true, "gemini-2.5-flash": true, "claude": false} {
		if l.Has(name) != want {
			t.Errorf("Has(%q) = %v", name, !want)
		}
	}
}
