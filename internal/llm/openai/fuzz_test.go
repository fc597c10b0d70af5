package openai_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

// FuzzModel_Stream feeds arbitrary response bodies to the adapter: it must
// never panic and must always end with one done or error event whose
// message matches the events before it.
func FuzzModel_Stream(f *testing.F) {
	for _, turn := range []llmtest.ServerTurn{
		{Message: hello},
		{Message: llm.Message{Content: []llm.Part{{Type: llm.PartThinking, Thinking: "t"}, llm.Text("x"),
			llm.ToolCall("call_1", "read", []byte(`{"path":"a"}`)), llm.ToolCall("call_2", "ls", nil)}}, Interleave: true},
		{Message: hello, Cut: llmtest.CutErrorEvent, CutAfter: 3},
	} {
		f.Add(record(f, turn))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m := openai.New(openai.Config{Model: "m", APIKey: "k", BaseURL: "http://replay.invalid/v1",
			HTTPClient: &http.Client{Transport: llmtest.Replay(body)}})
		llmtest.CheckStream(t, m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
	})
}
