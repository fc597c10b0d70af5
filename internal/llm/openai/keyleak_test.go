package openai_test

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

// TestModel_KeyLeak: an error body or an in-stream error chunk echoing
// the request's headers, as some proxies send, must not carry the key into
// the error the runtime logs and posts on the ticket.
func TestModel_KeyLeak(t *testing.T) {
	llmtest.RunKeyLeakContract(t, func(t *testing.T, key, baseURL string) llm.Model {
		return openai.New(openai.Config{Model: "gpt-5", APIKey: key, BaseURL: baseURL + "/v1"})
	})
}
