package openai_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

// Some servers send content after the finish_reason chunk; it still
// belongs to the message and its part still ends before done.
func TestModel_ContentAfterFinish(t *testing.T) {
	body := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":null}]}\n\n" +
		"data: [DONE]\n\n"
	m := openai.New(openai.Config{Model: "m", BaseURL: "http://replay.invalid/v1", HTTPClient: &http.Client{Transport: llmtest.Replay(body)}})
	msg, err := llmtest.CheckStream(t, m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("x")}}))
	if err != nil || msg.Text() != "ab" {
		t.Errorf("text %q, err %v", msg.Text(), err)
	}
}
