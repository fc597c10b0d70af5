package anthropic_test

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/anthropic"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

func TestModel_Contract(t *testing.T) {
	llmtest.RunModelContract(t, func(t *testing.T, turns ...llmtest.ServerTurn) llm.Model {
		srv := llmtest.NewServer(t, turns...)
		return anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", APIKey: "k", BaseURL: srv.URL})
	})
}
