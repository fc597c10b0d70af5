package anthropic_test

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/anthropic"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// TestModel_KeyLeak: an error body or an in-stream error event echoing
// the request's headers, as some proxies send, must not carry the key into
// the error the runtime logs and posts on the ticket.
func TestModel_KeyLeak(t *testing.T) {
	llmtest.RunKeyLeakContract(t, func(t *testing.T, key, baseURL string) llm.Model {
		return anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", APIKey: key, BaseURL: baseURL, Info: sonnet})
	})
}
