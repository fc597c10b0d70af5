package anthropic_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/anthropic"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// FuzzModel_Stream feeds arbitrary response bodies to the adapter: it must
// never panic and must always end with one done or error event whose
// message matches the events before it.
func FuzzModel_Stream(f *testing.F) {
	for _, turn := range []llmtest.ServerTurn{
		{Message: hello},
		{Message: llm.Message{Content: []llm.Part{{Type: llm.PartThinking, Thinking: "t", Signature: "s"},
			llm.ToolCall("toolu_1", "read", []byte(`{"path":"a"}`))}}},
		{Message: hello, Cut: llmtest.CutErrorEvent, CutAfter: 3},
	} {
		f.Add(record(f, turn))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m := anthropic.New(anthropic.Config{Model: "m", APIKey: "k", BaseURL: "http://replay.invalid",
			HTTPClient: &http.Client{Transport: llmtest.Replay(body)}})
		llmtest.CheckStream(t, m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
	})
}
