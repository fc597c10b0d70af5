package llmtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestServer_AnthropicWireFormat(t *testing.T) {
	s := NewServer(t, ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("Hi")}, Usage: &llm.Usage{Input: 25, Output: 15}}})
	resp, body := post(t, s.URL+"/v1/messages", `{"model":"claude-sonnet-4-5","stream":true}`)
	if resp.Header.Get("content-type") != "text/event-stream" {
		t.Errorf("content-type = %q", resp.Header.Get("content-type"))
	}
	want := `event: message_start
data: {"type":"message_start","message":{"id":"msg_01Test","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type":"ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":15}}

event: message_stop
data: {"type":"message_stop"}

`
	if body != want {
		t.Errorf("stream =\n%s\nwant\n%s", body, want)
	}
	if r := s.Requests(); len(r) != 1 || r[0].Body["model"] != "claude-sonnet-4-5" {
		t.Errorf("recorded = %+v", r)
	}
}

func TestServer_OpenAIWireFormat(t *testing.T) {
	turn := ServerTurn{Message: llm.Message{Content: []llm.Part{llm.ToolCall("call_1", "ls", []byte(`{}`))}, Usage: &llm.Usage{Input: 9, Output: 3}}}
	s := NewServer(t, turn, turn)
	_, body := post(t, s.URL+"/v1/chat/completions", `{"model":"gpt-5","stream":true,"stream_options":{"include_usage":true}}`)
	lines := strings.Split(strings.TrimSpace(body), "\n\n")
	if lines[len(lines)-1] != "data: [DONE]" {
		t.Errorf("last line = %q", lines[len(lines)-1])
	}
	wantTool := `data: {"id":"chatcmpl-test","object":"chat.completion.chunk","created":1700000000,"model":"gpt-5","system_fingerprint":"fp_test","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ls","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}`
	if lines[1] != wantTool {
		t.Errorf("tool call chunk =\n%s\nwant\n%s", lines[1], wantTool)
	}
	if !strings.Contains(lines[3], `"finish_reason":"tool_calls"`) ||
		!strings.Contains(lines[4], `"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12`) {
		t.Errorf("finish and usage chunks = %s\n%s", lines[3], lines[4])
	}
	// Without include_usage there is no usage at all.
	_, body = post(t, s.URL+"/v1/chat/completions", `{"model":"gpt-5","stream":true}`)
	if strings.Contains(body, "usage") {
		t.Errorf("usage sent without include_usage:\n%s", body)
	}
}

func TestServer_ErrorBodies(t *testing.T) {
	s := NewServer(t,
		ServerTurn{Status: 529, RetryAfter: "3"},
		ServerTurn{Status: 400, ErrorType: "context_length_exceeded", ErrorMessage: "too long"})
	resp, body := post(t, s.URL+"/v1/messages", `{}`)
	if resp.StatusCode != 529 || resp.Header.Get("retry-after") != "3" ||
		body != `{"type":"error","error":{"type":"overloaded_error","message":"overloaded_error"},"request_id":"req_011CTest"}` {
		t.Errorf("anthropic error: %d %q", resp.StatusCode, body)
	}
	resp, body = post(t, s.URL+"/v1/chat/completions", `{}`)
	if resp.StatusCode != 400 || body != `{"error":{"message":"too long","type":"invalid_request_error","param":null,"code":"context_length_exceeded"}}` {
		t.Errorf("openai error: %d %q", resp.StatusCode, body)
	}
	// With the script exhausted the server says so in the protocol's shape.
	resp, body = post(t, s.URL+"/v1/messages", `{}`)
	if resp.StatusCode != 400 || !strings.Contains(body, "no scripted turn left") {
		t.Errorf("exhausted: %d %q", resp.StatusCode, body)
	}
}

// TestServer_Delay: a turn with a Delay is answered no sooner than that,
// and whole.
func TestServer_Delay(t *testing.T) {
	s := NewServer(t, ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("Late")}}, Delay: 50 * time.Millisecond})
	start := time.Now()
	_, body := post(t, s.URL+"/v1/messages", `{"model":"claude-sonnet-4-5","stream":true}`)
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("answered after %v, before the turn's delay of 50ms", d)
	}
	if !strings.Contains(body, `"text":"Late"`) || !strings.Contains(body, "message_stop") {
		t.Errorf("stream = %s", body)
	}
}
