package openai_test

import (
	"context"
	"io"
	"net/http"
	"strings"
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
		f.Add(recordBody(f, turn))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m := openai.New(openai.Config{Model: "m", APIKey: "k", BaseURL: "http://replay.invalid/v1",
			HTTPClient: &http.Client{Transport: replay(body)}})
		llmtest.CheckStream(t, m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
	})
}

// recordBody returns the fake server's response body for a turn.
func recordBody(f *testing.F, turn llmtest.ServerTurn) []byte {
	srv := llmtest.NewServer(f, turn)
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream_options":{"include_usage":true}}`))
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
