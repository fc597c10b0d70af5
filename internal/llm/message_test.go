package llm

import (
	"encoding/json"
	"testing"
)

func TestMessage_JSONIsCompactAndStable(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want string
	}{
		{"user text", UserText("hi"), `{"role":"user","content":[{"type":"text","text":"hi"}]}`},
		{"user image", Message{Role: RoleUser, Content: []Part{Image("image/png", "iVBO")}},
			`{"role":"user","content":[{"type":"image","mimeType":"image/png","data":"iVBO"}]}`},
		{"assistant", Message{Role: RoleAssistant, Content: []Part{
			{Type: PartThinking, Thinking: "hmm", Signature: "sig"},
			{Type: PartThinking, Signature: "enc", Redacted: true},
			Text("ok"),
			ToolCall("call_1", "read", []byte(`{ "path": "a.go" }`)),
		}, Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: StopToolUse,
			Usage: &Usage{Input: 10, Output: 5, CacheRead: 100, Cost: 0.001}},
			`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},` +
				`{"type":"thinking","signature":"enc","redacted":true},{"type":"text","text":"ok"},` +
				`{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a.go"}}],` +
				`"provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"tool_use",` +
				`"usage":{"input":10,"output":5,"cacheRead":100,"cost":0.001}}`},
		{"tool result", ToolResultText("call_1", "read", "boom", true),
			`{"role":"toolResult","content":[{"type":"text","text":"boom"}],"toolCallId":"call_1","toolName":"read","isError":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Fatalf("got  %s\nwant %s", b, tt.want)
			}
			var back Message
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			b2, _ := json.Marshal(back)
			if string(b2) != tt.want {
				t.Fatalf("round trip changed encoding:\n%s\n%s", b2, tt.want)
			}
		})
	}
}

func TestToolArguments(t *testing.T) {
	tests := map[string]string{
		"":               `{}`,
		"  ":             `{}`,
		`{"a": [1, 2]}`:  `{"a":[1,2]}`,
		`{"a": "b"`:      `"{\"a\": \"b\""`,
		`not json`:       `"not json"`,
		`{"s":"x\ny"}  `: `{"s":"x\ny"}`,
	}
	for in, want := range tests {
		if got := string(ToolArguments([]byte(in))); got != want {
			t.Errorf("ToolArguments(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestParseModelID(t *testing.T) {
	tests := []struct {
		in, provider, model string
		ok                  bool
	}{
		{"anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", true},
		{"ollama/qwen3:8b", "ollama", "qwen3:8b", true},
		{"openrouter/anthropic/claude-sonnet-4.5", "openrouter", "anthropic/claude-sonnet-4.5", true},
		{"OpenAI/gpt-5", "openai", "gpt-5", true},
		{"gpt-5", "", "", false},
		{"/gpt-5", "", "", false},
		{"openai/", "", "", false},
	}
	for _, tt := range tests {
		id, err := ParseModelID(tt.in)
		if (err == nil) != tt.ok {
			t.Fatalf("ParseModelID(%q) err = %v, want ok=%v", tt.in, err, tt.ok)
		}
		if err != nil {
			if KindOf(err) != KindInvalidRequest {
				t.Errorf("kind = %q", KindOf(err))
			}
			continue
		}
		if id.Provider != tt.provider || id.Model != tt.model {
			t.Errorf("ParseModelID(%q) = %+v", tt.in, id)
		}
	}
}
