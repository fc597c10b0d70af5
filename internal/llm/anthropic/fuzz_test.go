package anthropic_test

import (
	"context"
	"io"
	"net/http"
	"strings"
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
		f.Add(recordBody(f, turn))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m := anthropic.New(anthropic.Config{Model: "m", APIKey: "k", BaseURL: "http://replay.invalid",
			HTTPClient: &http.Client{Transport: replay(body)}})
		llmtest.CheckStream(t, m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
	})
}

// recordBody returns the fake server's response body for a turn.
func recordBody(f *testing.F, turn llmtest.ServerTurn) []byte {
	srv := llmtest.NewServer(f, turn)
	resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{}`))
	if err != nil {
		f.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		f.Fatal(err)
	}
	return body
}
