package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/anthropic"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// conversation is a session with thinking, parallel tool calls, their
// results (one with an image) and a follow-up.
func conversation() []llm.Message {
	return []llm.Message{
		llm.UserText("look at a.go"),
		{Role: llm.RoleAssistant, Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: llm.StopToolUse, Content: []llm.Part{
			{Type: llm.PartThinking, Thinking: "read both", Signature: "sig-1"},
			{Type: llm.PartThinking, Signature: "opaque", Redacted: true},
			llm.Text("Reading."),
			llm.ToolCall("toolu_1", "read", []byte(`{"path":"a.go"}`)),
			llm.ToolCall("toolu_2", "read", []byte(`{"path":"logo.png"}`)),
		}},
		llm.ToolResultText("toolu_1", "read", "package a", false),
		{Role: llm.RoleToolResult, ToolCallID: "toolu_2", ToolName: "read", Content: []llm.Part{llm.Image("image/png", "iVBORw0KGgo=")}},
		{Role: llm.RoleAssistant, Provider: "openai", Content: []llm.Part{
			{Type: llm.PartThinking, Thinking: "foreign reasoning"}, llm.Text("Done.")}},
		{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: "overloaded"},
		llm.UserText("thanks, now b.go"),
	}
}

func TestModel_RequestShape(t *testing.T) {
	m, srv := newModel(t, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
	temp := 0.2
	_, _, err := collect(t, m, llm.Request{System: "You are Bonsai.", Messages: conversation(), Temperature: &temp,
		Tools: []llm.ToolSpec{{Name: "ls", Description: "List.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}, readTool}})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		MaxTokens   int      `json:"max_tokens"`
		Temperature *float64 `json:"temperature"`
		Thinking    any      `json:"thinking"`
		System      []map[string]any
		Tools       []map[string]any
		Messages    []struct {
			Role    string
			Content []map[string]any
		}
	}
	if err := json.Unmarshal(srv.Requests()[0].Raw, &body); err != nil {
		t.Fatal(err)
	}
	if body.MaxTokens != 32000 || body.Temperature == nil || *body.Temperature != 0.2 || body.Thinking != nil {
		t.Errorf("max_tokens %d temperature %v thinking %v", body.MaxTokens, body.Temperature, body.Thinking)
	}
	ephemeral := map[string]any{"type": "ephemeral"}
	if len(body.System) != 1 || body.System[0]["text"] != "You are Bonsai." || !equalJSON(body.System[0]["cache_control"], ephemeral) {
		t.Errorf("system = %v", body.System)
	}
	if body.Tools[0]["cache_control"] != nil || !equalJSON(body.Tools[1]["cache_control"], ephemeral) {
		t.Errorf("tool cache_control: %v", body.Tools)
	}
	if !equalJSON(body.Tools[1]["input_schema"], map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}},
		"required": []any{"path"}, "additionalProperties": false}) {
		t.Errorf("input_schema = %v", body.Tools[1]["input_schema"])
	}
	roles := ""
	for _, msg := range body.Messages {
		roles += msg.Role + " "
	}
	// The empty failed assistant message is dropped; tool results merge into one user turn.
	if roles != "user assistant user assistant user " {
		t.Fatalf("roles = %s", roles)
	}
	a := body.Messages[1].Content
	wantA := []map[string]any{
		{"type": "thinking", "thinking": "read both", "signature": "sig-1"},
		{"type": "redacted_thinking", "data": "opaque"},
		{"type": "text", "text": "Reading."},
		{"type": "tool_use", "id": "toolu_1", "name": "read", "input": map[string]any{"path": "a.go"}},
		{"type": "tool_use", "id": "toolu_2", "name": "read", "input": map[string]any{"path": "logo.png"}},
	}
	if !equalJSON(a, wantA) {
		t.Errorf("assistant = %s", mustJSON(a))
	}
	results := body.Messages[2].Content
	wantResults := []map[string]any{
		{"type": "tool_result", "tool_use_id": "toolu_1", "content": []any{map[string]any{"type": "text", "text": "package a"}}},
		{"type": "tool_result", "tool_use_id": "toolu_2", "cache_control": ephemeral, "content": []any{
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}}},
	}
	if !equalJSON(results, wantResults) {
		t.Errorf("tool results = %s", mustJSON(results))
	}
	// Thinking from another provider is not sent back.
	if !equalJSON(body.Messages[3].Content, []map[string]any{{"type": "text", "text": "Done."}}) {
		t.Errorf("foreign assistant = %s", mustJSON(body.Messages[3].Content))
	}
	last := body.Messages[4].Content
	if !equalJSON(last, []map[string]any{{"type": "text", "text": "thanks, now b.go", "cache_control": ephemeral}}) {
		t.Errorf("last user = %s", mustJSON(last))
	}
	if body.Messages[0].Content[0]["cache_control"] != nil {
		t.Errorf("only the last two user turns are cache breakpoints: %v", body.Messages[0].Content)
	}
}

func TestModel_RequestThinking(t *testing.T) {
	m, srv := newModel(t, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
	temp := 0.2
	_, _, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Thinking: llm.ThinkingHigh, MaxTokens: 4096, Temperature: &temp})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	th, _ := req.Body["thinking"].(map[string]any)
	if th["type"] != "enabled" || th["budget_tokens"] != float64(llm.ThinkingHigh.ThinkingBudget()) {
		t.Errorf("thinking = %v", req.Body["thinking"])
	}
	if mt := req.Body["max_tokens"].(float64); mt <= th["budget_tokens"].(float64) {
		t.Errorf("max_tokens %v must exceed the budget", mt)
	}
	if _, ok := req.Body["temperature"]; ok {
		t.Error("temperature is refused with thinking and must not be sent")
	}
	if req.Header.Get("anthropic-beta") != "interleaved-thinking-2025-05-14" {
		t.Errorf("anthropic-beta = %q", req.Header.Get("anthropic-beta"))
	}
}

func equalJSON(a, b any) bool { return mustJSON(a) == mustJSON(b) }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	// Round trip through any so map key order and number types agree.
	var x any
	_ = json.Unmarshal(b, &x)
	b, _ = json.Marshal(x)
	return string(b)
}

func TestModel_RequestMergesSameRoleTurns(t *testing.T) {
	m, srv := newModel(t, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
	msgs := []llm.Message{
		llm.UserText("a"), llm.UserText("b"),
		{Role: llm.RoleAssistant, StopReason: llm.StopLength, Content: []llm.Part{llm.Text("part one")}},
		{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("part two")}},
		llm.UserText("c"),
	}
	if _, _, err := collect(t, m, llm.Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	got := mustJSON(srv.Requests()[0].Body["messages"])
	want := mustJSON([]any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "a"},
			map[string]any{"type": "text", "text": "b", "cache_control": map[string]any{"type": "ephemeral"}}}},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "part one"}, map[string]any{"type": "text", "text": "part two"}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "c", "cache_control": map[string]any{"type": "ephemeral"}}}},
	})
	if got != want {
		t.Errorf("messages =\n%s\nwant\n%s", got, want)
	}
}

func TestModel_RequestBadToolSchema(t *testing.T) {
	m, srv := newModel(t)
	_, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("x")},
		Tools: []llm.ToolSpec{{Name: "broken", Parameters: json.RawMessage(`[1,2]`)}}})
	if llm.KindOf(err) != llm.KindInvalidRequest || msg.StopReason != llm.StopError || len(srv.Requests()) != 0 {
		t.Errorf("err %v, stop %s, %d requests", err, msg.StopReason, len(srv.Requests()))
	}
}

func TestModel_RequestAdaptiveThinking(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
	info := sonnet
	info.AdaptiveThinking = true
	m := anthropic.New(anthropic.Config{Model: "claude-opus-4-6", APIKey: "k", BaseURL: srv.URL, Info: info})
	if _, _, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Thinking: llm.ThinkingMedium}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if got := mustJSON(body["thinking"]); got != `{"display":"summarized","type":"adaptive"}` {
		t.Errorf("thinking = %s", got)
	}
	if got := mustJSON(body["output_config"]); got != `{"effort":"medium"}` {
		t.Errorf("output_config = %s", got)
	}
}
