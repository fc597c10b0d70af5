package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// openaiProtocol renders turns as OpenAI Chat Completions streaming
// chunks: "data: {chunk}" lines whose choices[0].delta carries the role,
// content, reasoning_content or tool_calls (by index), a chunk with the
// finish_reason, a usage chunk with empty choices when the request set
// stream_options.include_usage, and "data: [DONE]".
type openaiProtocol struct{}

func openaiErrorType(status int) (typ, code string) {
	switch status {
	case 401:
		return "invalid_request_error", "invalid_api_key"
	case 403:
		return "invalid_request_error", "unsupported_country_region_territory"
	case 404:
		return "invalid_request_error", "model_not_found"
	case 429:
		return "requests", "rate_limit_exceeded"
	}
	if status >= 500 {
		return "server_error", ""
	}
	return "invalid_request_error", ""
}

func (openaiProtocol) errorBody(status int, errType, message string) []byte {
	typ, code := openaiErrorType(status)
	if errType != "" {
		code = errType
	}
	if message == "" {
		message = typ
	}
	var c any
	if code != "" {
		c = code
	}
	b, _ := json.Marshal(obj{{"error", obj{{"message", message}, {"type", typ}, {"param", nil}, {"code", c}}}})
	return b
}

func (openaiProtocol) errorEvent(w *streamWriter, errType, message string) {
	if message == "" {
		message = "The server had an error while processing your request. Sorry about that!"
	}
	typ := "server_error"
	var c any
	switch {
	case strings.HasSuffix(errType, "_error"):
		typ = errType // a type such as invalid_request_error
	case errType != "":
		c = errType
	}
	b, _ := json.Marshal(obj{{"error", obj{{"message", message}, {"type", typ}, {"param", nil}, {"code", c}}}})
	w.write("", b)
}

func (openaiProtocol) ping(w *streamWriter) {
	// OpenRouter and others keep a quiet stream open with SSE comments.
	w.buf.WriteString(": keep-alive\n\n")
	w.flush()
}

func (openaiProtocol) filler(w *streamWriter) {
	b, _ := json.Marshal(obj{{"id", "chatcmpl-test"}, {"object", "chat.completion.chunk"}, {"created", 1700000000},
		{"model", "gpt-5"}, {"choices", []any{obj{{"index", 0}, {"delta", obj{{"content", fillerText}}}, {"finish_reason", nil}}}}})
	w.write("", b)
}

func openaiFinish(r llm.StopReason) string {
	switch r {
	case llm.StopToolUse:
		return "tool_calls"
	case llm.StopLength:
		return "length"
	case llm.StopContentFilter:
		return "content_filter"
	}
	return "stop"
}

func (openaiProtocol) stream(w *streamWriter, turn ServerTurn, req map[string]any) {
	msg := turn.Message
	model, _ := req["model"].(string)
	includeUsage := false
	if so, ok := req["stream_options"].(map[string]any); ok {
		includeUsage, _ = so["include_usage"].(bool)
	}
	if model == "" {
		model = "gpt-5"
	}
	chunk := func(delta obj, finish any) obj {
		c := obj{{"id", "chatcmpl-test"}, {"object", "chat.completion.chunk"}, {"created", 1700000000},
			{"model", model}, {"system_fingerprint", "fp_test"},
			{"choices", []any{obj{{"index", 0}, {"delta", delta}, {"logprobs", nil}, {"finish_reason", finish}}}}}
		if includeUsage {
			c = append(c, kv{"usage", nil})
		}
		return c
	}
	send := func(delta obj) bool { return w.event("", chunk(delta, nil)) }

	if !send(obj{{"role", "assistant"}, {"content", ""}, {"refusal", nil}}) {
		return
	}
	size := chunkSize(turn)
	calls := 0
	for i := 0; i < len(msg.Content); i++ {
		p := msg.Content[i]
		switch p.Type {
		case llm.PartText:
			// A refusal streams in its own field.
			field := "content"
			if msg.StopReason == llm.StopRefusal {
				field = "refusal"
			}
			for _, d := range Split(p.Text, size) {
				if !send(obj{{field, d}}) {
					return
				}
			}
		case llm.PartThinking:
			for _, d := range Split(p.Thinking, size) {
				if !send(obj{{"reasoning_content", d}}) {
					return
				}
			}
		case llm.PartToolCall:
			group := []llm.Part{p}
			if turn.Interleave {
				for i+1 < len(msg.Content) && msg.Content[i+1].Type == llm.PartToolCall {
					i++
					group = append(group, msg.Content[i])
				}
			}
			if !openaiToolCalls(send, group, calls, size) {
				return
			}
			calls += len(group)
		default:
			panic(fmt.Sprintf("llmtest: openai cannot stream a %q part", p.Type))
		}
	}
	if !w.event("", chunk(obj{}, openaiFinish(stopReason(msg)))) {
		return
	}
	if includeUsage {
		u := llm.Usage{}
		if msg.Usage != nil {
			u = *msg.Usage
		}
		prompt := u.Input + u.CacheRead
		usage := obj{{"id", "chatcmpl-test"}, {"object", "chat.completion.chunk"}, {"created", 1700000000},
			{"model", model}, {"system_fingerprint", "fp_test"}, {"choices", []any{}},
			{"usage", obj{{"prompt_tokens", prompt}, {"completion_tokens", u.Output},
				{"total_tokens", prompt + u.Output},
				{"prompt_tokens_details", obj{{"cached_tokens", u.CacheRead}, {"audio_tokens", 0}}},
				{"completion_tokens_details", obj{{"reasoning_tokens", u.Reasoning}, {"audio_tokens", 0},
					{"accepted_prediction_tokens", 0}, {"rejected_prediction_tokens", 0}}}}}}
		if !w.event("", usage) {
			return
		}
	}
	w.event("", []byte("[DONE]"))
}

// openaiToolCalls streams a group of tool calls: each call's first chunk
// names it, then argument fragments follow, round-robin across the group.
func openaiToolCalls(send func(obj) bool, group []llm.Part, first, size int) bool {
	pieces := make([][]string, len(group))
	for k, p := range group {
		call := obj{{"index", first + k}, {"id", p.ID}, {"type", "function"},
			{"function", obj{{"name", p.Name}, {"arguments", ""}}}}
		if !send(obj{{"tool_calls", []any{call}}}) {
			return false
		}
		pieces[k] = Split(string(p.Arguments), size)
	}
	for more := true; more; {
		more = false
		for k := range group {
			if len(pieces[k]) == 0 {
				continue
			}
			more = true
			d := obj{{"index", first + k}, {"function", obj{{"arguments", pieces[k][0]}}}}
			pieces[k] = pieces[k][1:]
			if !send(obj{{"tool_calls", []any{d}}}) {
				return false
			}
		}
	}
	return true
}
