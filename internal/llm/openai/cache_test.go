package openai_test

import (
	"bytes"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// A model reuses each message's encoding across requests; the bodies it
// sends must be byte for byte what a fresh model sends.
func TestModel_RequestCachedEncodingMatchesFresh(t *testing.T) {
	ok := llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}}
	reused, srv := newModel(t, gpt5, ok, ok)
	first := []llm.Message{
		llm.UserText("look"),
		{Role: llm.RoleAssistant, Provider: "openai", Content: []llm.Part{llm.ToolCall("call_1", "read", []byte(`{"path":"logo.png"}`))}},
		{Role: llm.RoleToolResult, ToolCallID: "call_1", ToolName: "read", Content: []llm.Part{llm.Image("image/png", "AAAA")}},
	}
	second := append(first[:3:3], llm.Message{Role: llm.RoleAssistant, Provider: "openai", Content: []llm.Part{llm.Text("a logo")}},
		llm.UserText("thanks"))
	for i, msgs := range [][]llm.Message{first, second} {
		req := llm.Request{System: "sys", Messages: msgs}
		if _, _, err := collect(t, reused, req); err != nil {
			t.Fatal(err)
		}
		fresh, freshSrv := newModel(t, gpt5, ok)
		if _, _, err := collect(t, fresh, req); err != nil {
			t.Fatal(err)
		}
		if got, want := srv.Requests()[i].Raw, freshSrv.Requests()[0].Raw; !bytes.Equal(got, want) {
			t.Errorf("request %d from the cache:\n%s\nfresh:\n%s", i, got, want)
		}
	}
}

// A user message without parts goes out without a content field, as the
// SDK sent it, rather than with an empty list.
func TestModel_RequestEmptyUserMessage(t *testing.T) {
	ok := llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}}
	m, srv := newModel(t, gpt5, ok)
	msgs := []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{}}, llm.UserText("hi")}
	if _, _, err := collect(t, m, llm.Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(srv.Requests()[0].Body["messages"]); got != `[{"role":"user"},{"content":"hi","role":"user"}]` {
		t.Errorf("messages = %s", got)
	}
}
