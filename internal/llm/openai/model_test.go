package openai_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

var gpt5 = llm.Info{ID: "openai/gpt-5", ContextWindow: 400000, MaxOutputTokens: 128000, Images: true, Thinking: true, MinEffort: "minimal",
	Price: llm.Price{Input: 1.25, Output: 10, CacheRead: 0.125}}

func newModel(t *testing.T, info llm.Info, turns ...llmtest.ServerTurn) (*openai.Model, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, turns...)
	return openai.New(openai.Config{Model: "gpt-5", APIKey: "sk-test", BaseURL: srv.URL + "/v1", Info: info}), srv
}

func collect(t *testing.T, m llm.Model, req llm.Request) ([]llm.Event, llm.Message, error) {
	t.Helper()
	var evs []llm.Event
	var acc llm.Accumulator
	var err error
	for ev, e := range m.Stream(context.Background(), req) {
		evs = append(evs, ev)
		acc.Apply(ev)
		err = e
	}
	return evs, acc.Message(), err
}

func types(evs []llm.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, string(e.Type))
	}
	return strings.Join(s, " ")
}

func TestModel_StreamText(t *testing.T) {
	m, srv := newModel(t, gpt5, llmtest.ServerTurn{Chunk: 5, Message: llm.Message{
		Content: []llm.Part{llm.Text("Hello, world!")},
		Usage:   &llm.Usage{Input: 1000, Output: 200, CacheRead: 10000, Reasoning: 64},
	}})
	evs, msg, err := collect(t, m, llm.Request{System: "be brief", Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := types(evs), "text_start text_delta text_delta text_delta text_end done"; got != want {
		t.Errorf("events = %s, want %s", got, want)
	}
	if msg.Text() != "Hello, world!" || msg.StopReason != llm.StopEnd || msg.Provider != "openai" || msg.Model != "gpt-5" {
		t.Errorf("message = %+v", msg)
	}
	u := msg.Usage
	// prompt_tokens 11000 of which 10000 cached.
	// completion_tokens 200 of which 64 reasoning.
	if u == nil || u.Input != 1000 || u.Output != 200 || u.CacheRead != 10000 || u.CacheWrite != 0 || u.Reasoning != 64 {
		t.Fatalf("usage = %+v", u)
	}
	if want := (1000*1.25 + 200*10 + 10000*0.125) / 1e6; math.Abs(u.Cost-want) > 1e-12 {
		t.Errorf("cost = %v, want %v", u.Cost, want)
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/chat/completions" || req.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("request %s headers %v", req.Path, req.Header)
	}
	so, _ := req.Body["stream_options"].(map[string]any)
	if req.Body["stream"] != true || so["include_usage"] != true {
		t.Errorf("body = %s", req.Raw)
	}
}

func TestModel_StreamParallelToolCalls(t *testing.T) {
	for _, interleave := range []bool{false, true} {
		m, _ := newModel(t, gpt5, llmtest.ServerTurn{Chunk: 3, Interleave: interleave, Message: llm.Message{Content: []llm.Part{
			llm.Text("Reading both."),
			llm.ToolCall("call_a", "read", []byte(`{"path":"a.go"}`)),
			llm.ToolCall("call_b", "read", []byte(`{"path":"b.go","limit":10}`)),
			llm.ToolCall("call_c", "ls", nil),
		}}})
		evs, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("go")}})
		if err != nil {
			t.Fatal(err)
		}
		if msg.StopReason != llm.StopToolUse || msg.Text() != "Reading both." {
			t.Errorf("interleave=%v: stop %s text %q", interleave, msg.StopReason, msg.Text())
		}
		calls := msg.ToolCalls()
		want := []struct{ id, name, args string }{
			{"call_a", "read", `{"path":"a.go"}`}, {"call_b", "read", `{"path":"b.go","limit":10}`}, {"call_c", "ls", `{}`}}
		if len(calls) != len(want) {
			t.Fatalf("calls = %+v", calls)
		}
		for i, w := range want {
			if calls[i].ID != w.id || calls[i].Name != w.name || string(calls[i].Arguments) != w.args {
				t.Errorf("interleave=%v: call %d = %s %s %s", interleave, i, calls[i].ID, calls[i].Name, calls[i].Arguments)
			}
		}
		ends := 0
		for _, ev := range evs {
			if ev.Type == llm.EventToolCallEnd {
				ends++
			}
		}
		if ends != 3 || evs[len(evs)-1].Type != llm.EventDone {
			t.Errorf("events = %s", types(evs))
		}
	}
}

func TestModel_StreamReasoning(t *testing.T) {
	m, _ := newModel(t, gpt5, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{
		{Type: llm.PartThinking, Thinking: "The user greets me; answer briefly."},
		llm.Text("Hi!"),
	}}})
	evs, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Thinking: llm.ThinkingLow})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := types(evs), "thinking_start thinking_delta thinking_delta thinking_delta thinking_end text_start text_delta text_end done"; got != want {
		t.Errorf("events = %s\nwant     %s", got, want)
	}
	if msg.Content[0].Thinking != "The user greets me; answer briefly." || msg.Content[1].Text != "Hi!" {
		t.Errorf("content = %+v", msg.Content)
	}
}

func TestModel_RequestShape(t *testing.T) {
	m, srv := newModel(t, gpt5, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
	temp := 0.3
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Part{llm.Text("what is this?"), llm.Image("image/png", "iVBORw0KGgo=")}},
		{Role: llm.RoleAssistant, Provider: "openai", Content: []llm.Part{
			{Type: llm.PartThinking, Thinking: "hidden"}, llm.Text("Let me read."),
			llm.ToolCall("call_1", "read", []byte(`{"path":"a.go"}`)),
			llm.ToolCall("call_2", "read", []byte(`{"path":"logo.png"}`))}},
		llm.ToolResultText("call_1", "read", "package a", false),
		{Role: llm.RoleToolResult, ToolCallID: "call_2", ToolName: "read", Content: []llm.Part{llm.Text("image:"), llm.Image("image/png", "AAAA")}},
		{Role: llm.RoleAssistant, StopReason: llm.StopAborted},
		llm.UserText("thanks"),
	}
	_, _, err := collect(t, m, llm.Request{System: "You are Bonsai.", Messages: msgs, Temperature: &temp, Thinking: llm.ThinkingHigh,
		SessionID: "sess-1", Tools: []llm.ToolSpec{{Name: "read", Description: "Read a file.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	want := `[{"content":"You are Bonsai.","role":"system"},` +
		`{"content":[{"text":"what is this?","type":"text"},{"image_url":{"url":"data:image/png;base64,iVBORw0KGgo="},"type":"image_url"}],"role":"user"},` +
		`{"content":"Let me read.","role":"assistant","tool_calls":[` +
		`{"function":{"arguments":"{\"path\":\"a.go\"}","name":"read"},"id":"call_1","type":"function"},` +
		`{"function":{"arguments":"{\"path\":\"logo.png\"}","name":"read"},"id":"call_2","type":"function"}]},` +
		`{"content":"package a","role":"tool","tool_call_id":"call_1"},` +
		`{"content":"image:","role":"tool","tool_call_id":"call_2"},` +
		`{"content":[{"text":"Images returned by the tool calls above:","type":"text"},{"image_url":{"url":"data:image/png;base64,AAAA"},"type":"image_url"}],"role":"user"},` +
		`{"content":"thanks","role":"user"}]`
	if got := mustJSON(body["messages"]); got != want {
		t.Errorf("messages =\n%s\nwant\n%s", got, want)
	}
	if got := mustJSON(body["tools"]); got != `[{"function":{"description":"Read a file.","name":"read","parameters":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}},"type":"function"}]` {
		t.Errorf("tools = %s", got)
	}
	if body["reasoning_effort"] != "high" || body["max_completion_tokens"] != float64(32000) || body["prompt_cache_key"] != "sess-1" {
		t.Errorf("body = %s", srv.Requests()[0].Raw)
	}
	if _, ok := body["temperature"]; ok {
		t.Error("reasoning models refuse temperature")
	}
}

func TestModel_RequestCompatibleServer(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
	m := openai.New(openai.Config{Model: "qwen3:8b", BaseURL: srv.URL + "/v1", Provider: "ollama", LegacyMaxTokens: true,
		Info: llm.Info{MaxOutputTokens: 4096}})
	temp := 0.5
	withImage := llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.Text("hi"), llm.Image("image/png", "AAAA")}}
	_, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{withImage}, Temperature: &temp, Thinking: llm.ThinkingHigh})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.Header.Get("Authorization") != "" {
		t.Errorf("no key must send no authorization, got %q", req.Header.Get("Authorization"))
	}
	if req.Body["max_tokens"] != float64(4096) || req.Body["temperature"] != 0.5 || req.Body["reasoning_effort"] != nil {
		t.Errorf("body = %s", req.Raw)
	}
	// The catalog says this model takes no images: they become a notice.
	if got := mustJSON(req.Body["messages"]); got != `[{"content":[{"text":"hi","type":"text"},{"text":"`+llm.ImageOmitted+`","type":"text"}],"role":"user"}]` {
		t.Errorf("messages = %s", got)
	}
	if msg.Provider != "ollama" || msg.Model != "qwen3:8b" {
		t.Errorf("message = %+v", msg)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
