package openai_test

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

func TestModel_Contract(t *testing.T) {
	llmtest.RunModelContract(t, func(t *testing.T, turns ...llmtest.ServerTurn) llm.Model {
		srv := llmtest.NewServer(t, turns...)
		return openai.New(openai.Config{Model: "gpt-5", APIKey: "k", BaseURL: srv.URL + "/v1"})
	})
}
