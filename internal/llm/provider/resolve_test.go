package provider_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/provider"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestResolve_MissingKeyNamesTheVariable(t *testing.T) {
	tests := map[string]string{
		"anthropic/claude-sonnet-4-5": "ANTHROPIC_API_KEY",
		"openai/gpt-5":                "OPENAI_API_KEY",
		"openrouter/openai/gpt-5":     "OPENROUTER_API_KEY",
		"groq/llama-3.3-70b":          "GROQ_API_KEY",
		"gemini/gemini-2.5-flash":     "GEMINI_API_KEY",
	}
	for id, want := range tests {
		_, err := provider.Resolve(id, provider.Options{Getenv: env(nil)})
		if llm.KindOf(err) != llm.KindAuth || !strings.Contains(err.Error(), "set "+want) {
			t.Errorf("Resolve(%s) err = %v, want one naming %s", id, err, want)
		}
	}
}

func TestResolve_Errors(t *testing.T) {
	for _, id := range []string{"claude", "nosuch/model"} {
		if _, err := provider.Resolve(id, provider.Options{Getenv: env(nil)}); llm.KindOf(err) != llm.KindInvalidRequest {
			t.Errorf("Resolve(%q) err = %v", id, err)
		}
	}
	_, err := provider.Resolve("nosuch/model", provider.Options{Getenv: env(nil)})
	if !strings.Contains(err.Error(), "anthropic, deepseek, gemini, groq") {
		t.Errorf("unknown provider error should list the known ones: %v", err)
	}
}

// TestCheck_AgreesWithResolve: Check fails exactly when Resolve does, with
// the same error, for good and bad ids, with and without keys.
func TestCheck_AgreesWithResolve(t *testing.T) {
	ids := []string{"anthropic/claude-sonnet-4-5", "openai/gpt-5", "ollama/qwen3:8b", "claude", "nosuch/model", "", "openai/"}
	envs := []map[string]string{nil, {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}}
	for _, id := range ids {
		for _, e := range envs {
			_, want := provider.Resolve(id, provider.Options{Getenv: env(e)})
			got := provider.Check(id, env(e))
			if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
				t.Errorf("Check(%q) with %v = %v; Resolve says %v", id, e, got, want)
			}
		}
	}
}

func TestResolve_OllamaNeedsNoKey(t *testing.T) {
	r, err := provider.Resolve("ollama/qwen3:8b", provider.Options{Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if r.BaseURL != "http://localhost:11434/v1" || r.Warning == "" || r.Info.ContextWindow == 0 {
		t.Errorf("resolved = %+v", r)
	}
}

func TestResolve_EndToEnd(t *testing.T) {
	hi := llm.Message{Content: []llm.Part{llm.Text("hi")}, Usage: &llm.Usage{Input: 100, Output: 10}}
	tests := []struct {
		id, keyEnv, baseEnv, suffix, auth, path string
	}{
		{"anthropic/claude-haiku-4-5", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "", "k1", "/v1/messages"},
		{"openai/gpt-5-mini", "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1", "Bearer k1", "/v1/responses"},
		{"openai/gpt-4.1-mini", "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1", "Bearer k1", "/v1/chat/completions"},
		{"groq/openai/gpt-oss-120b", "GROQ_API_KEY", "GROQ_BASE_URL", "/openai/v1", "Bearer k1", "/openai/v1/chat/completions"},
		{"ollama/qwen3:8b", "", "OLLAMA_BASE_URL", "/v1", "", "/v1/chat/completions"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.ServerTurn{Status: 529}, llmtest.ServerTurn{Message: hi})
			vars := map[string]string{tt.baseEnv: srv.URL + tt.suffix}
			if tt.keyEnv != "" {
				vars[tt.keyEnv] = "k1"
			}
			r, err := provider.Resolve(tt.id, provider.Options{Getenv: env(vars),
				Retry: llm.RetryPolicy{MaxRetries: 1, Sleep: func(context.Context, time.Duration) error { return nil }}})
			if err != nil {
				t.Fatal(err)
			}
			msg, err := llm.Collect(r.Model.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hello")}}))
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			auth := reqs[len(reqs)-1].Header.Get("Authorization")
			if strings.HasPrefix(tt.id, "anthropic/") {
				auth = reqs[len(reqs)-1].Header.Get("X-Api-Key")
			}
			if msg.Text() != "hi" || len(reqs) != 2 || reqs[1].Path != tt.path || auth != tt.auth {
				t.Errorf("text %q, %d requests, last %s auth %q", msg.Text(), len(reqs), reqs[len(reqs)-1].Path, auth)
			}
			if r.Info.Price.Input > 0 && (msg.Usage == nil || msg.Usage.Cost <= 0) {
				t.Errorf("a catalogued model must report cost: %+v", msg.Usage)
			}
		})
	}
}

func TestResolve_ConfigOverridesEnvironment(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
	r, err := provider.Resolve("openai/gpt-5", provider.Options{APIKey: "from-config", BaseURL: srv.URL + "/v1",
		Getenv: env(map[string]string{"OPENAI_API_KEY": "from-env", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Collect(r.Model.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("x")}})); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer from-config" {
		t.Errorf("authorization = %q", got)
	}
}
