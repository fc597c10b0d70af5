package runui

import (
	"errors"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

func TestRun_Hint(t *testing.T) {
	env := map[string]string{"OLLAMA_BASE_URL": "http://10.0.0.5:11434/v1", "VLLM_BASE_URL": "http://bob:hunter2-secret@10.0.0.6:8000/v1"}
	tests := []struct {
		model string
		err   error
		want  string
	}{
		{"ollama/qwen3:8b", &llm.Error{Kind: llm.KindTransport, Message: "connection refused"},
			"hint: could not talk to http://10.0.0.5:11434/v1: is the server running? Set OLLAMA_BASE_URL or 'bonsai config set providers.ollama.baseURL' to reach another one"},
		{"vllm/qwen3", &llm.Error{Kind: llm.KindTransport, Message: "connection refused"},
			"hint: could not talk to http://bob:xxxxx@10.0.0.6:8000/v1: is the server running? Set VLLM_BASE_URL or 'bonsai config set providers.vllm.baseURL' to reach another one"},
		{"openai/gpt-5", &llm.Error{Kind: llm.KindTransport},
			"hint: could not talk to https://api.openai.com/v1: is the server running? Set OPENAI_BASE_URL or 'bonsai config set providers.openai.baseURL' to reach another one"},
		{"anthropic/claude-sonnet-4-5", &llm.Error{Kind: llm.KindAuth, Status: 401}, "hint: the provider refused the key: check ANTHROPIC_API_KEY or 'bonsai credentials set anthropic'"},
		{"openai/gpt-5", &llm.Error{Kind: llm.KindAuth, Message: "You exceeded your current quota", Err: llm.ErrQuota},
			"hint: openai says the account's quota or credit is used up: add credit or raise the limit in its billing settings; waiting does not help"},
		{"anthropic/claude-sonnet-4-5", &llm.Error{Kind: llm.KindRateLimit}, ""},
		{"anthropic/claude-sonnet-4-5", errors.New("disk full"), ""},
		{"anthropic/claude-sonnet-4-5", nil, ""},
	}
	for _, tt := range tests {
		a, err := agent.New(agent.Config{Model: llmtest.NewModel(), Info: llm.Info{ID: tt.model}})
		if err != nil {
			t.Fatal(err)
		}
		rt := &Run{Getenv: func(k string) string { return env[k] }, Agent: a}
		if got := rt.hint(tt.err); got != tt.want {
			t.Errorf("hint(%s, %v) = %q, want %q", tt.model, tt.err, got, tt.want)
		}
	}
}
