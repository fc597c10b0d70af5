package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

func newResponses(t *testing.T, info llm.Info, turns ...llmtest.ServerTurn) (*openai.ResponsesModel, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, turns...)
	return openai.NewResponses(openai.Config{Model: "gpt-5", APIKey: "sk-test", BaseURL: srv.URL + "/v1", Info: info}), srv
}

func TestResponses_Contract(t *testing.T) {
	llmtest.RunModelContract(t, func(t *testing.T, turns ...llmtest.ServerTurn) llm.Model {
		m, _ := newResponses(t, gpt5, turns...)
		return m
	})
}

func TestResponses_KeyLeak(t *testing.T) {
	llmtest.RunKeyLeakContract(t, func(t *testing.T, key, baseURL string) llm.Model {
		return openai.NewResponses(openai.Config{Model: "gpt-5", APIKey: key, BaseURL: baseURL + "/v1", Info: gpt5})
	})
}

func recordResponses(tb testing.TB, turn llmtest.ServerTurn) []byte {
	return llmtest.Record(tb, "/v1/responses",
		`{"model":"gpt-5","store":false,"include":["reasoning.encrypted_content"],"reasoning":{"summary":"auto"}}`, turn)
}

// FuzzResponses_Stream feeds arbitrary bodies to the Responses adapter: it
// must never panic and must always end with one done or error event whose
// message matches the events before it.
func FuzzResponses_Stream(f *testing.F) {
	for _, turn := range []llmtest.ServerTurn{
		{Message: hello},
		{Message: llm.Message{Content: []llm.Part{{Type: llm.PartThinking, Thinking: "a\n\nb", Signature: "enc"}, llm.Text("x"),
			llm.ToolCall("call_1", "read", []byte(`{"path":"a"}`)), llm.ToolCall("call_2", "ls", nil)}}},
		{Message: llm.Message{StopReason: llm.StopRefusal, Content: []llm.Part{llm.Text("no")}}},
		{Message: llm.Message{StopReason: llm.StopLength, Content: []llm.Part{llm.Text("cut")}}},
		{Message: hello, Cut: llmtest.CutErrorEvent, CutAfter: 3},
	} {
		f.Add(recordResponses(f, turn))
	}
	// The recorded shapes of other servers (raw reasoning, arguments only
	// in the finished item, deltas that disagree, quota errors).
	recs, _ := filepath.Glob(filepath.Join("testdata", "responses", "*.sse"))
	for _, r := range recs {
		f.Add(llmtest.LoadRecording(f, r))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m := openai.NewResponses(openai.Config{Model: "m", APIKey: "k", BaseURL: "http://replay.invalid/v1", Info: gpt5,
			HTTPClient: &http.Client{Transport: llmtest.Replay(body)}})
		llmtest.CheckStream(t, m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
	})
}

func TestResponses_Faults(t *testing.T) {
	tests := []struct {
		name       string
		turn       llmtest.ServerTurn
		kind       llm.ErrorKind
		status     int
		retryAfter time.Duration
		partial    string
	}{
		{"rate limit", llmtest.ServerTurn{Status: 429, RetryAfter: "2", ErrorMessage: "Rate limit reached for gpt-5"},
			llm.KindRateLimit, 429, 2 * time.Second, ""},
		{"insufficient quota", llmtest.ServerTurn{Status: 429, ErrorType: "insufficient_quota", ErrorMessage: "You exceeded your current quota"},
			llm.KindAuth, 429, 0, ""},
		{"server error", llmtest.ServerTurn{Status: 500}, llm.KindOverloaded, 500, 0, ""},
		{"auth", llmtest.ServerTurn{Status: 401, ErrorMessage: "Incorrect API key provided"}, llm.KindAuth, 401, 0, ""},
		{"context overflow", llmtest.ServerTurn{Status: 400, ErrorType: "context_length_exceeded",
			ErrorMessage: "Your input exceeds the context window of this model."}, llm.KindContextOverflow, 400, 0, ""},
		{"error event mid-stream", llmtest.ServerTurn{Message: hello, Chunk: 5, Cut: llmtest.CutErrorEvent, CutAfter: 6}, llm.KindOverloaded, 0, 0, "Hello ther"},
		{"rate limit event", llmtest.ServerTurn{Message: hello, Cut: llmtest.CutErrorEvent, CutAfter: 2, ErrorType: "rate_limit_exceeded"},
			llm.KindRateLimit, 0, 0, ""},
		{"response failed", llmtest.ServerTurn{Message: llm.Message{StopReason: llm.StopError, ErrorMessage: "The server had an error",
			Content: []llm.Part{llm.Text("par")}}}, llm.KindOverloaded, 0, 0, "par"},
		{"reset before response", llmtest.ServerTurn{Message: hello, Cut: llmtest.CutReset}, llm.KindTransport, 0, 0, ""},
		{"reset mid-stream", llmtest.ServerTurn{Message: hello, Chunk: 5, Cut: llmtest.CutReset, CutAfter: 6}, llm.KindTransport, 0, 0, "Hello ther"},
		{"reset before completed", llmtest.ServerTurn{Message: hello, Cut: llmtest.CutReset, CutAfter: 9}, llm.KindTransport, 0, 0, hello.Text()},
		{"malformed json", llmtest.ServerTurn{Message: hello, Chunk: 5, Cut: llmtest.CutMalformed, CutAfter: 5}, llm.KindTransport, 0, 0, "Hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newResponses(t, gpt5, tt.turn)
			evs, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if e.Kind != tt.kind || e.Status != tt.status || e.Provider != "openai" {
				t.Errorf("got kind %s status %d provider %s (%v)", e.Kind, e.Status, e.Provider, e)
			}
			if tt.retryAfter != 0 && e.RetryAfter != tt.retryAfter {
				t.Errorf("retry-after = %v, want %v", e.RetryAfter, tt.retryAfter)
			}
			last := evs[len(evs)-1]
			if last.Type != llm.EventError || last.Message.StopReason != llm.StopError {
				t.Errorf("last event = %+v", last)
			}
			if msg.Text() != tt.partial {
				t.Errorf("partial = %q, want %q", msg.Text(), tt.partial)
			}
		})
	}
}

func TestResponses_RetryThenSucceed(t *testing.T) {
	m, srv := newResponses(t, gpt5,
		llmtest.ServerTurn{Status: 503},
		llmtest.ServerTurn{Message: hello, Cut: llmtest.CutReset, CutAfter: 2}, // created and in_progress only
		llmtest.ServerTurn{Message: hello},
	)
	rm := llm.WithRetry(m, llm.RetryPolicy{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { return nil }})
	_, msg, err := collect(t, rm, llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil || msg.Text() != hello.Text() || len(srv.Requests()) != 3 {
		t.Fatalf("text %q err %v after %d requests", msg.Text(), err, len(srv.Requests()))
	}
}

func TestResponses_StreamUsageAndEvents(t *testing.T) {
	m, srv := newResponses(t, gpt5, llmtest.ServerTurn{Chunk: 8, Message: llm.Message{Content: []llm.Part{
		{Type: llm.PartThinking, Thinking: "**Plan**\n\nRead a.go first", Signature: "gAAAA-enc-1"},
		llm.Text("Reading."), llm.ToolCall("call_a", "read", []byte(`{"path":"a.go"}`))},
		Usage: &llm.Usage{Input: 1000, CacheRead: 10000, Output: 300, Reasoning: 120}}})
	evs, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("go")}, Thinking: llm.ThinkingMedium})
	if err != nil {
		t.Fatal(err)
	}
	want := "thinking_start thinking_delta thinking_delta thinking_delta thinking_delta thinking_end " +
		"text_start text_delta text_end toolcall_start toolcall_delta toolcall_delta toolcall_end done"
	if got := types(evs); got != want {
		t.Errorf("events = %s\nwant     %s", got, want)
	}
	th := msg.Content[0]
	if th.Thinking != "**Plan**\n\nRead a.go first" || th.Signature != "gAAAA-enc-1" || msg.Text() != "Reading." ||
		msg.StopReason != llm.StopToolUse || string(msg.ToolCalls()[0].Arguments) != `{"path":"a.go"}` {
		t.Errorf("message = %+v", msg)
	}
	u := msg.Usage
	if u == nil || u.Input != 1000 || u.CacheRead != 10000 || u.Output != 300 || u.Reasoning != 120 {
		t.Fatalf("usage = %+v", u)
	}
	if want := (1000*1.25 + 300*10 + 10000*0.125) / 1e6; math.Abs(u.Cost-want) > 1e-12 {
		t.Errorf("cost = %v, want %v", u.Cost, want)
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/responses" || req.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("request %s headers %v", req.Path, req.Header)
	}
}

func TestResponses_StopReasons(t *testing.T) {
	m, _ := newResponses(t, gpt5,
		llmtest.ServerTurn{Message: llm.Message{StopReason: llm.StopRefusal, Content: []llm.Part{llm.Text("I can't help with that.")}}},
		llmtest.ServerTurn{Message: llm.Message{StopReason: llm.StopContentFilter, Content: []llm.Part{llm.Text("Par")}}},
		llmtest.ServerTurn{Message: llm.Message{StopReason: llm.StopLength, Content: []llm.Part{llm.ToolCall("call_1", "write", []byte(`{"path":"a"}`))}}},
	)
	for _, want := range []llm.StopReason{llm.StopRefusal, llm.StopContentFilter, llm.StopLength} {
		_, msg, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("x")}})
		if err != nil || msg.StopReason != want {
			t.Errorf("stop = %s (err %v), want %s", msg.StopReason, err, want)
		}
		if want == llm.StopRefusal && msg.Text() != "I can't help with that." {
			t.Errorf("refusal text = %q", msg.Text())
		}
	}
}

func TestResponses_RequestShape(t *testing.T) {
	m, srv := newResponses(t, gpt5, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
	temp := 0.3
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Part{llm.Text("what is this?"), llm.Image("image/png", "iVBORw0KGgo=")}},
		{Role: llm.RoleAssistant, Provider: "openai", Content: []llm.Part{
			{Type: llm.PartThinking, Thinking: "**Look**", Signature: "gAAAA-enc-1"},
			llm.Text("Let me read."),
			llm.ToolCall("call_1", "read", []byte(`{"path":"a.go"}`)),
			llm.ToolCall("call_2", "read", []byte(`{"path":"logo.png"}`))}},
		llm.ToolResultText("call_1", "read", "package a", false),
		{Role: llm.RoleToolResult, ToolCallID: "call_2", ToolName: "read", Content: []llm.Part{llm.Text("image:"), llm.Image("image/png", "AAAA")}},
		{Role: llm.RoleAssistant, Provider: "anthropic", Content: []llm.Part{
			{Type: llm.PartThinking, Thinking: "theirs", Signature: "anthropic-sig"}, llm.Text("Done.")}},
		{Role: llm.RoleAssistant, StopReason: llm.StopAborted},
		llm.UserText("thanks"),
	}
	_, _, err := collect(t, m, llm.Request{System: "You are Bonsai.", Messages: msgs, Temperature: &temp, Thinking: llm.ThinkingHigh,
		SessionID: "sess-1", Tools: []llm.ToolSpec{{Name: "read", Description: "Read a file.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	raw := string(srv.Requests()[0].Raw)
	wantHead := `{"model":"gpt-5","stream":true,"store":false,"max_output_tokens":32000,"include":["reasoning.encrypted_content"],` +
		`"reasoning":{"effort":"high","summary":"auto"},"prompt_cache_key":"sess-1","instructions":"You are Bonsai.",` +
		`"tools":[{"type":"function","name":"read","description":"Read a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"strict":false}],"input":[`
	if !strings.HasPrefix(raw, wantHead) {
		t.Errorf("request head =\n%s\nwant\n%s", raw[:min(len(raw), len(wantHead))], wantHead)
	}
	wantInput := `[{"type":"message","role":"user","content":[{"type":"input_text","text":"what is this?"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]},` +
		`{"type":"reasoning","summary":[{"type":"summary_text","text":"**Look**"}],"encrypted_content":"gAAAA-enc-1"},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me read."}]},` +
		`{"type":"function_call","call_id":"call_1","name":"read","arguments":"{\"path\":\"a.go\"}"},` +
		`{"type":"function_call","call_id":"call_2","name":"read","arguments":"{\"path\":\"logo.png\"}"},` +
		`{"type":"function_call_output","call_id":"call_1","output":"package a"},` +
		`{"type":"function_call_output","call_id":"call_2","output":[{"type":"input_text","text":"image:"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"thanks"}]}]}`
	if got := raw[strings.Index(raw, `"input":`)+len(`"input":`):]; got != wantInput {
		t.Errorf("input =\n%s\nwant\n%s", got, wantInput)
	}
	if strings.Contains(raw, "temperature") {
		t.Error("reasoning models refuse temperature")
	}
}

// A model the catalog does not mark as reasoning gets no reasoning
// fields and keeps its temperature.
func TestResponses_RequestNonReasoning(t *testing.T) {
	m, srv := newResponses(t, llm.Info{MaxOutputTokens: 16384}, llmtest.ServerTurn{Message: hello})
	temp := 0.5
	if _, _, err := collect(t, m, llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Temperature: &temp, Thinking: llm.ThinkingHigh}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if body["reasoning"] != nil || body["include"] != nil || body["temperature"] != 0.5 || body["max_output_tokens"] != float64(16384) {
		t.Errorf("body = %s", srv.Requests()[0].Raw)
	}
}

// The reasoning of each turn is sent back, encrypted, on the next: a
// multi-turn tool session keeps every reasoning item, in place.
func TestResponses_ReasoningAcrossTurns(t *testing.T) {
	turn := func(enc, call string) llmtest.ServerTurn {
		return llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{
			{Type: llm.PartThinking, Thinking: "step " + enc, Signature: enc},
			llm.ToolCall(call, "ls", nil)}}}
	}
	m, srv := newResponses(t, gpt5, turn("enc-1", "call_1"), turn("enc-2", "call_2"), llmtest.ServerTurn{Message: hello})
	msgs := []llm.Message{llm.UserText("list twice")}
	for i := range 3 {
		_, msg, err := collect(t, m, llm.Request{Messages: msgs, Thinking: llm.ThinkingLow})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, msg)
		for _, c := range msg.ToolCalls() {
			msgs = append(msgs, llm.ToolResultText(c.ID, c.Name, "a.go", false))
		}
		if i == 2 && msg.Text() != hello.Text() {
			t.Errorf("last answer = %q", msg.Text())
		}
	}
	last := srv.Requests()[2].Body["input"].([]any)
	var kinds []string
	for _, it := range last {
		it := it.(map[string]any)
		k := it["type"].(string)
		if k == "reasoning" {
			k += ":" + it["encrypted_content"].(string)
		}
		kinds = append(kinds, k)
	}
	want := "message reasoning:enc-1 function_call function_call_output reasoning:enc-2 function_call function_call_output"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("third request's input = %s\nwant %s", got, want)
	}
}

// A model reuses each message's encoding; the bodies must be what a fresh
// model sends.
func TestResponses_CachedEncodingMatchesFresh(t *testing.T) {
	ok := llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}}
	reused, srv := newResponses(t, gpt5, ok, ok)
	first := []llm.Message{
		llm.UserText("look"),
		{Role: llm.RoleAssistant, Provider: "openai", Content: []llm.Part{{Type: llm.PartThinking, Signature: "e"},
			llm.ToolCall("call_1", "read", []byte(`{"path":"logo.png"}`))}},
		{Role: llm.RoleToolResult, ToolCallID: "call_1", ToolName: "read", Content: []llm.Part{llm.Image("image/png", "AAAA")}},
	}
	second := append(first[:3:3], llm.Message{Role: llm.RoleAssistant, Provider: "openai", Content: []llm.Part{llm.Text("a logo")}},
		llm.UserText("thanks"))
	for i, msgs := range [][]llm.Message{first, second} {
		req := llm.Request{System: "sys", Messages: msgs}
		if _, _, err := collect(t, reused, req); err != nil {
			t.Fatal(err)
		}
		fresh, freshSrv := newResponses(t, gpt5, ok)
		if _, _, err := collect(t, fresh, req); err != nil {
			t.Fatal(err)
		}
		if got, want := string(srv.Requests()[i].Raw), string(freshSrv.Requests()[0].Raw); got != want {
			t.Errorf("request %d from the cache:\n%s\nfresh:\n%s", i, got, want)
		}
	}
}
