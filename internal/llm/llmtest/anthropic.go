package llmtest

import (
	"encoding/json"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// anthropicProtocol renders turns as Anthropic Messages streaming events:
// message_start, then per content block content_block_start, its deltas
// and content_block_stop, with a ping after the first block starts, then
// message_delta with the stop reason and usage, and message_stop.
type anthropicProtocol struct{}

func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529, 503:
		return "overloaded_error"
	}
	return "api_error"
}

func (anthropicProtocol) errorBody(status int, errType, message string) []byte {
	if errType == "" {
		errType = anthropicErrorType(status)
	}
	if message == "" {
		message = errType
	}
	b, _ := json.Marshal(obj{{"type", "error"},
		{"error", obj{{"type", errType}, {"message", message}}},
		{"request_id", "req_011CTest"}})
	return b
}

func (anthropicProtocol) errorEvent(w *streamWriter, errType, message string) {
	if errType == "" {
		errType = "overloaded_error"
	}
	if message == "" {
		message = "Overloaded"
	}
	b, _ := json.Marshal(obj{{"type", "error"}, {"error", obj{{"type", errType}, {"message", message}}}})
	w.write("error", b)
}

func (anthropicProtocol) ping(w *streamWriter) {
	w.write("ping", []byte(`{"type": "ping"}`))
}

func (anthropicProtocol) filler(w *streamWriter) {
	b, _ := json.Marshal(obj{{"type", "content_block_delta"}, {"index", 0}, {"delta", obj{{"type", "text_delta"}, {"text", fillerText}}}})
	w.write("content_block_delta", b)
}

func anthropicStop(r llm.StopReason) string {
	switch r {
	case llm.StopToolUse:
		return "tool_use"
	case llm.StopLength:
		return "max_tokens"
	case llm.StopRefusal:
		return "refusal"
	}
	return "end_turn"
}

func (anthropicProtocol) stream(w *streamWriter, turn ServerTurn, req map[string]any) {
	msg := turn.Message
	model, _ := req["model"].(string)
	u := llm.Usage{}
	if msg.Usage != nil {
		u = *msg.Usage
	}
	if model == "" {
		model = "claude-sonnet-4-5"
	}
	start := obj{{"type", "message_start"}, {"message", obj{
		{"id", "msg_01Test"}, {"type", "message"}, {"role", "assistant"},
		{"content", []any{}}, {"model", model},
		{"stop_reason", nil}, {"stop_sequence", nil},
		{"usage", obj{{"input_tokens", u.Input}, {"cache_creation_input_tokens", u.CacheWrite},
			{"cache_read_input_tokens", u.CacheRead}, {"output_tokens", 1}}},
	}}}
	if !w.event("message_start", start) {
		return
	}
	chunk := chunkSize(turn)
	for i, p := range msg.Content {
		if !anthropicBlock(w, i, p, chunk) {
			return
		}
	}
	delta := obj{{"type", "message_delta"},
		{"delta", obj{{"stop_reason", anthropicStop(stopReason(msg))}, {"stop_sequence", nil}}},
		{"usage", obj{{"input_tokens", u.Input}, {"cache_creation_input_tokens", u.CacheWrite},
			{"cache_read_input_tokens", u.CacheRead}, {"output_tokens", u.Output}}}}
	if !w.event("message_delta", delta) {
		return
	}
	w.event("message_stop", obj{{"type", "message_stop"}})
}

func anthropicBlock(w *streamWriter, i int, p llm.Part, chunk int) bool {
	blockStart := func(block obj) bool {
		ok := w.event("content_block_start", obj{{"type", "content_block_start"}, {"index", i}, {"content_block", block}})
		// Anthropic sends a ping early in the stream; clients must skip it.
		if ok && i == 0 {
			ok = w.event("ping", obj{{"type", "ping"}})
		}
		return ok
	}
	delta := func(d obj) bool {
		return w.event("content_block_delta", obj{{"type", "content_block_delta"}, {"index", i}, {"delta", d}})
	}
	ok := true
	switch {
	case p.Type == llm.PartText:
		ok = blockStart(obj{{"type", "text"}, {"text", ""}})
		for _, d := range Split(p.Text, chunk) {
			ok = ok && delta(obj{{"type", "text_delta"}, {"text", d}})
		}
	case p.Type == llm.PartThinking && p.Redacted:
		ok = blockStart(obj{{"type", "redacted_thinking"}, {"data", p.Signature}})
	case p.Type == llm.PartThinking:
		ok = blockStart(obj{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}})
		for _, d := range Split(p.Thinking, chunk) {
			ok = ok && delta(obj{{"type", "thinking_delta"}, {"thinking", d}})
		}
		ok = ok && delta(obj{{"type", "signature_delta"}, {"signature", p.Signature}})
	case p.Type == llm.PartToolCall:
		ok = blockStart(obj{{"type", "tool_use"}, {"id", p.ID}, {"name", p.Name}, {"input", obj{}}})
		ok = ok && delta(obj{{"type", "input_json_delta"}, {"partial_json", ""}})
		for _, d := range Split(string(p.Arguments), chunk) {
			ok = ok && delta(obj{{"type", "input_json_delta"}, {"partial_json", d}})
		}
	default:
		panic(fmt.Sprintf("llmtest: anthropic cannot stream a %q part", p.Type))
	}
	return ok && w.event("content_block_stop", obj{{"type", "content_block_stop"}, {"index", i}})
}
