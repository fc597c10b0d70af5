package scripted

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Model is an Anthropic Messages endpoint that waits latency, then has
// answer stream the reply to a conversation of messages messages;
// anything else is a 400 in the API's error shape.
func Model(latency time.Duration, answer func(w http.ResponseWriter, messages int)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []json.RawMessage `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/v1/messages" {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bench"}}`, http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
		answer(w, len(req.Messages))
	})
}

// StreamTool streams an assistant message that calls tool name with
// args, as the Messages API does.
func StreamTool(w http.ResponseWriter, name string, args any) {
	type m = map[string]any
	raw, _ := json.Marshal(args)
	streamMessage(w, "tool_use",
		m{"type": "tool_use", "id": "toolu_bench", "name": name, "input": m{}},
		m{"type": "input_json_delta", "partial_json": string(raw)})
}

// StreamText streams an assistant message saying text.
func StreamText(w http.ResponseWriter, text string) {
	type m = map[string]any
	streamMessage(w, "end_turn", m{"type": "text", "text": ""}, m{"type": "text_delta", "text": text})
}

// streamMessage streams one message of one content block, started as
// block and filled by delta, ending with stop.
func streamMessage(w http.ResponseWriter, stop string, block, delta map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	type m = map[string]any
	ev("message_start", m{"type": "message_start", "message": m{"id": "msg_bench", "type": "message", "role": "assistant",
		"model": "bench", "content": []any{}, "stop_reason": nil, "usage": m{"input_tokens": 1000, "output_tokens": 1}}})
	ev("content_block_start", m{"type": "content_block_start", "index": 0, "content_block": block})
	ev("content_block_delta", m{"type": "content_block_delta", "index": 0, "delta": delta})
	ev("content_block_stop", m{"type": "content_block_stop", "index": 0})
	ev("message_delta", m{"type": "message_delta", "delta": m{"stop_reason": stop}, "usage": m{"output_tokens": 20}})
	ev("message_stop", m{"type": "message_stop"})
}
