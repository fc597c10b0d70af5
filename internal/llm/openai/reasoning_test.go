package openai_test

import (
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

// Reasoning goes back on assistant turns with tool calls, in the field the
// provider reads, and only there: this provider's own reasoning, an empty
// field for another provider's turn, nothing on a turn without tool calls
// or for a provider that does not ask for it.
func TestModel_RequestReasoningBack(t *testing.T) {
	msgs := []llm.Message{
		llm.UserText("look"),
		{Role: llm.RoleAssistant, Provider: "deepseek", Content: []llm.Part{
			{Type: llm.PartThinking, Thinking: "Read a.go first."}, llm.ToolCall("call_1", "read", []byte(`{"path":"a.go"}`))}},
		llm.ToolResultText("call_1", "read", "package a", false),
		{Role: llm.RoleAssistant, Provider: "anthropic", Content: []llm.Part{
			{Type: llm.PartThinking, Thinking: "theirs", Signature: "sig"}, llm.ToolCall("call_2", "ls", nil)}},
		llm.ToolResultText("call_2", "ls", "a.go", false),
		{Role: llm.RoleAssistant, Provider: "deepseek", Content: []llm.Part{
			{Type: llm.PartThinking, Thinking: "Done."}, llm.Text("It is package a.")}},
		llm.UserText("thanks"),
	}
	tests := []struct{ provider, field, want string }{
		{"deepseek", "reasoning_content", `[{"content":"look","role":"user"},` +
			`{"reasoning_content":"Read a.go first.","role":"assistant","tool_calls":[{"function":{"arguments":"{\"path\":\"a.go\"}","name":"read"},"id":"call_1","type":"function"}]},` +
			`{"content":"package a","role":"tool","tool_call_id":"call_1"},` +
			`{"reasoning_content":"","role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"ls"},"id":"call_2","type":"function"}]},` +
			`{"content":"a.go","role":"tool","tool_call_id":"call_2"},` +
			`{"content":"It is package a.","role":"assistant"},{"content":"thanks","role":"user"}]`},
		{"deepseek", "reasoning", `"reasoning":"Read a.go first."`},
		{"deepseek", "", `{"role":"assistant","tool_calls":[{"function":{"arguments":"{\"path\":\"a.go\"}","name":"read"},"id":"call_1","type":"function"}]}`},
	}
	for _, tt := range tests {
		srv := llmtest.NewServer(t, llmtest.ServerTurn{Message: hello})
		m := openai.New(openai.Config{Model: "deepseek-chat", APIKey: "k", BaseURL: srv.URL + "/v1", Provider: tt.provider, ReasoningField: tt.field})
		if _, _, err := collect(t, m, llm.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		got := mustJSON(srv.Requests()[0].Body["messages"])
		if tt.field == "reasoning_content" && got != tt.want || tt.field != "reasoning_content" && !contains(got, tt.want) {
			t.Errorf("field %q: messages =\n%s\nwant (in them)\n%s", tt.field, got, tt.want)
		}
		if tt.field == "" && (contains(got, "reasoning") || contains(got, "Read a.go first")) {
			t.Errorf("reasoning sent to a provider that does not ask for it:\n%s", got)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// The fake server refuses, as DeepSeek does, a tool-call turn without its
// reasoning; the adapter configured for DeepSeek is accepted.
func TestModel_ReasoningRequiredByServer(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.ServerTurn{Message: hello}, llmtest.ServerTurn{Message: hello})
	srv.RequireReasoning("reasoning_content")
	msgs := []llm.Message{llm.UserText("look"),
		{Role: llm.RoleAssistant, Provider: "deepseek", Content: []llm.Part{{Type: llm.PartThinking, Thinking: "plan"}, llm.ToolCall("c1", "ls", nil)}},
		llm.ToolResultText("c1", "ls", "a.go", false)}
	plain := openai.New(openai.Config{Model: "deepseek-chat", APIKey: "k", BaseURL: srv.URL + "/v1", Provider: "deepseek"})
	if _, _, err := collect(t, plain, llm.Request{Messages: msgs}); llm.KindOf(err) != llm.KindInvalidRequest ||
		!contains(err.Error(), "reasoning_content` in the thinking mode must be passed back") {
		t.Errorf("without the field: err = %v", err)
	}
	ds := openai.New(openai.Config{Model: "deepseek-chat", APIKey: "k", BaseURL: srv.URL + "/v1", Provider: "deepseek", ReasoningField: "reasoning_content"})
	if _, _, err := collect(t, ds, llm.Request{Messages: msgs}); err != nil {
		t.Errorf("with the field: %v", err)
	}
}

// Chat Completions' content_filter finish and refusal deltas are their own
// stop reasons.
func TestModel_StopReasons(t *testing.T) {
	m, _ := newModel(t, gpt5,
		llmtest.ServerTurn{Message: llm.Message{StopReason: llm.StopContentFilter, Content: []llm.Part{llm.Text("Par")}}},
		llmtest.ServerTurn{Message: llm.Message{StopReason: llm.StopRefusal, Content: []llm.Part{llm.Text("I can't help with that.")}}})
	for _, want := range []llm.StopReason{llm.StopContentFilter, llm.StopRefusal} {
		_, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("x")}})
		if err != nil || msg.StopReason != want {
			t.Errorf("stop = %s (err %v), want %s", msg.StopReason, err, want)
		}
	}
}
