package llmtest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// sseEvents splits a Responses stream into its events, checking that each
// event line names the data's type and that sequence numbers count from 0.
func sseEvents(t *testing.T, body string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, block := range strings.Split(strings.TrimSpace(body), "\n\n") {
		name, data, ok := strings.Cut(block, "\n")
		if !ok || !strings.HasPrefix(name, "event: ") || !strings.HasPrefix(data, "data: ") {
			t.Fatalf("not an SSE event with a name: %q", block)
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(strings.TrimPrefix(data, "data: ")), &ev); err != nil {
			t.Fatalf("event %q: %v", block, err)
		}
		if ev["type"] != strings.TrimPrefix(name, "event: ") {
			t.Errorf("event line %q carries type %v", name, ev["type"])
		}
		if seq, _ := ev["sequence_number"].(float64); int(seq) != len(evs) {
			t.Errorf("event %d has sequence_number %v", len(evs), ev["sequence_number"])
		}
		evs = append(evs, ev)
	}
	return evs
}

func types(evs []map[string]any) string {
	var b []string
	for _, ev := range evs {
		b = append(b, strings.TrimPrefix(ev["type"].(string), "response."))
	}
	return strings.Join(b, " ")
}

const reasoningRequest = `{"model":"gpt-5","stream":true,"store":false,"include":["reasoning.encrypted_content"],"reasoning":{"effort":"low","summary":"auto"}}`

func TestServer_ResponsesWireFormat(t *testing.T) {
	turn := ServerTurn{Chunk: 8, Message: llm.Message{Content: []llm.Part{
		{Type: llm.PartThinking, Thinking: "**Plan**\n\nRead it", Signature: "gAAAAenc"},
		llm.Text("Looking."), llm.ToolCall("call_1", "read", []byte(`{"path":"a.go"}`))},
		Usage: &llm.Usage{Input: 10, CacheRead: 90, Output: 30, Reasoning: 12}}}
	s := NewServer(t, turn, turn)
	resp, body := post(t, s.URL+"/v1/responses", reasoningRequest)
	if resp.Header.Get("content-type") != "text/event-stream" {
		t.Errorf("content-type = %q", resp.Header.Get("content-type"))
	}
	if strings.Contains(body, "[DONE]") {
		t.Error("the Responses API sends no [DONE]")
	}
	evs := sseEvents(t, body)
	want := "created in_progress " +
		"output_item.added reasoning_summary_part.added reasoning_summary_text.delta reasoning_summary_text.done reasoning_summary_part.done " +
		"reasoning_summary_part.added reasoning_summary_text.delta reasoning_summary_text.done reasoning_summary_part.done output_item.done " +
		"output_item.added content_part.added output_text.delta output_text.done content_part.done output_item.done " +
		"output_item.added function_call_arguments.delta function_call_arguments.delta function_call_arguments.done output_item.done " +
		"completed"
	if got := types(evs); got != want {
		t.Fatalf("events =\n%s\nwant\n%s", got, want)
	}
	wantLines := []string{
		`data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"rs_test0","type":"reasoning","summary":[]}}`,
		`data: {"type":"response.reasoning_summary_text.delta","sequence_number":8,"item_id":"rs_test0","output_index":0,"summary_index":1,"delta":"Read it"}`,
		`data: {"type":"response.output_item.done","sequence_number":11,"output_index":0,"item":{"id":"rs_test0","type":"reasoning","summary":[{"type":"summary_text","text":"**Plan**"},{"type":"summary_text","text":"Read it"}],"encrypted_content":"gAAAAenc"}}`,
		`data: {"type":"response.output_text.delta","sequence_number":14,"item_id":"msg_test1","output_index":1,"content_index":0,"delta":"Looking.","logprobs":[]}`,
		`data: {"type":"response.output_item.added","sequence_number":18,"output_index":2,"item":{"id":"fc_test2","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"read"}}`,
		`data: {"type":"response.function_call_arguments.delta","sequence_number":19,"item_id":"fc_test2","output_index":2,"delta":"{\"path\":"}`,
		`data: {"type":"response.function_call_arguments.done","sequence_number":21,"item_id":"fc_test2","output_index":2,"name":"read","arguments":"{\"path\":\"a.go\"}"}`,
		`"usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":90,"cache_write_tokens":0},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":130}`,
	}
	for _, l := range wantLines {
		if !strings.Contains(body, l) {
			t.Errorf("stream lacks\n%s", l)
		}
	}
	final := evs[len(evs)-1]["response"].(map[string]any)
	if final["status"] != "completed" || final["store"] != false || len(final["output"].([]any)) != 3 {
		t.Errorf("final response = %v", final)
	}

	// Without reasoning.summary and include, the reasoning item is bare.
	_, body = post(t, s.URL+"/v1/responses", `{"model":"gpt-5","stream":true}`)
	if strings.Contains(body, "summary_text") || strings.Contains(body, "encrypted_content") {
		t.Errorf("reasoning summary or encrypted content sent unasked:\n%s", body)
	}
}

// TestServer_ResponsesCustomToolCall: a call of a tool the request
// declares as custom (Codex's apply_patch) streams as a custom_tool_call
// with its raw input; the same call without that declaration is a
// function_call.
func TestServer_ResponsesCustomToolCall(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
	args, _ := json.Marshal(map[string]string{"input": patch})
	turn := ServerTurn{Chunk: 16, Message: llm.Message{Content: []llm.Part{llm.ToolCall("call_1", "apply_patch", args)}}}
	s := NewServer(t, turn, turn)
	_, body := post(t, s.URL+"/v1/responses", `{"model":"gpt-5.5","stream":true,"tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch","format":{"type":"grammar"}}]}`)
	evs := sseEvents(t, body)
	if got, want := types(evs), "created in_progress output_item.added custom_tool_call_input.delta custom_tool_call_input.delta custom_tool_call_input.delta custom_tool_call_input.delta custom_tool_call_input.done output_item.done completed"; got != want {
		t.Fatalf("events =\n%s\nwant\n%s", got, want)
	}
	for _, l := range []string{
		`data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"ctc_test0","type":"custom_tool_call","call_id":"call_1","input":"","name":"apply_patch"}}`,
		`data: {"type":"response.custom_tool_call_input.delta","sequence_number":3,"item_id":"ctc_test0","output_index":0,"delta":"*** Begin Patch\n"}`,
		`data: {"type":"response.custom_tool_call_input.done","sequence_number":7,"item_id":"ctc_test0","output_index":0,"input":` + string(mustJSON(patch)) + `}`,
		`data: {"type":"response.output_item.done","sequence_number":8,"output_index":0,"item":{"id":"ctc_test0","type":"custom_tool_call","call_id":"call_1","input":` + string(mustJSON(patch)) + `,"name":"apply_patch"}}`,
	} {
		if !strings.Contains(body, l) {
			t.Errorf("stream lacks\n%s\nin\n%s", l, body)
		}
	}
	_, body = post(t, s.URL+"/v1/responses", `{"model":"gpt-5","stream":true,"tools":[{"type":"function","name":"apply_patch"}]}`)
	if !strings.Contains(body, `"type":"function_call"`) || strings.Contains(body, "custom_tool_call") {
		t.Errorf("a function tool's call:\n%s", body)
	}
}

func TestServer_ResponsesEndings(t *testing.T) {
	s := NewServer(t,
		ServerTurn{Message: llm.Message{StopReason: llm.StopLength, Content: []llm.Part{llm.Text("cut")}}},
		ServerTurn{Message: llm.Message{StopReason: llm.StopContentFilter}},
		ServerTurn{Message: llm.Message{StopReason: llm.StopRefusal, Content: []llm.Part{llm.Text("I can't help with that.")}}},
		ServerTurn{Message: llm.Message{StopReason: llm.StopError, ErrorMessage: "The model failed."}},
		ServerTurn{Cut: CutErrorEvent, CutAfter: 1, ErrorType: "rate_limit_exceeded", ErrorMessage: "slow down"},
		ServerTurn{Status: 429, RetryAfter: "2", ErrorMessage: "Rate limit reached"},
	)
	last := func() map[string]any {
		_, body := post(t, s.URL+"/v1/responses", reasoningRequest)
		evs := sseEvents(t, body)
		return evs[len(evs)-1]
	}
	ev := last()
	if r := ev["response"].(map[string]any); ev["type"] != "response.incomplete" ||
		r["incomplete_details"].(map[string]any)["reason"] != "max_output_tokens" {
		t.Errorf("length: %v", ev)
	}
	ev = last()
	if r := ev["response"].(map[string]any); r["incomplete_details"].(map[string]any)["reason"] != "content_filter" {
		t.Errorf("content filter: %v", ev)
	}
	_, body := post(t, s.URL+"/v1/responses", reasoningRequest)
	if !strings.Contains(body, `"type":"response.refusal.delta"`) ||
		!strings.Contains(body, `"content":[{"type":"refusal","refusal":"I can't help with that."}]`) {
		t.Errorf("refusal:\n%s", body)
	}
	ev = last()
	if r := ev["response"].(map[string]any); ev["type"] != "response.failed" ||
		r["error"].(map[string]any)["message"] != "The model failed." || r["error"].(map[string]any)["code"] != "server_error" {
		t.Errorf("failed: %v", ev)
	}
	ev = last()
	if ev["type"] != "error" || ev["code"] != "rate_limit_exceeded" || ev["message"] != "slow down" || ev["sequence_number"] != 1.0 {
		t.Errorf("error event: %v", ev)
	}
	resp, body := post(t, s.URL+"/v1/responses", reasoningRequest)
	if resp.StatusCode != 429 || resp.Header.Get("retry-after") != "2" ||
		body != `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}` {
		t.Errorf("status error: %d %s", resp.StatusCode, body)
	}
	// /responses without an API root is no route, as on the real server.
	resp, _ = post(t, s.URL+"/responses", reasoningRequest)
	if resp.StatusCode != 404 {
		t.Errorf("/responses: %d", resp.StatusCode)
	}
}
