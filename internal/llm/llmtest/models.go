package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// DefaultModels are the model names the server lists until SetModels
// changes them.
var DefaultModels = []string{"claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1", "gpt-5", "gpt-5-mini", "qwen3:8b"}

// SetModels sets the model names GET /v1/models (Anthropic) and GET
// {root}/models (OpenAI) list.
func (s *Server) SetModels(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string{}, names...)
}

// RequireKey makes the server refuse, with 401 and the provider's error
// body, every request that does not carry key where the provider reads
// it (Anthropic: X-Api-Key; OpenAI: "Authorization: Bearer key"), as the
// providers refuse a wrong key; "" accepts any request again.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// RequireReasoning makes the server answer a Chat Completions request
// with 400 and DeepSeek's error when an assistant message with tool calls
// in it lacks field ("reasoning_content"), as DeepSeek does in thinking
// mode; "" accepts any request again. The request still uses up no turn.
func (s *Server) RequireReasoning(field string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reasoning = field
}

// refuseReasoning answers a request without the required reasoning and
// reports whether it did.
func (s *Server) refuseReasoning(w http.ResponseWriter, proto protocol, body map[string]any) bool {
	s.mu.Lock()
	field := s.reasoning
	s.mu.Unlock()
	if _, ok := proto.(openaiProtocol); !ok || field == "" {
		return false
	}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		if _, has := m[field]; m["role"] == "assistant" && m["tool_calls"] != nil && !has {
			w.Header().Set("content-type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(proto.errorBody(http.StatusBadRequest, "invalid_request_error",
				"The `"+field+"` in the thinking mode must be passed back to the API."))
			return true
		}
	}
	return false
}

// refuseKey answers a request without the required key and reports
// whether it did.
func (s *Server) refuseKey(w http.ResponseWriter, r *http.Request, proto protocol) bool {
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()
	if key == "" {
		return false
	}
	if _, ok := proto.(anthropicProtocol); ok && r.Header.Get("X-Api-Key") == key ||
		!ok && r.Header.Get("Authorization") == "Bearer "+key {
		return false
	}
	msg := "invalid x-api-key"
	switch proto.(type) {
	case openaiProtocol, responsesProtocol:
		msg = "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."
	}
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write(proto.errorBody(http.StatusUnauthorized, "", msg))
	return true
}

// modelsRoute reports the protocol of a request for the model list:
// Anthropic's GET /v1/models carries anthropic-version; OpenAI's is GET
// {root}/models with a root such as /v1.
func modelsRoute(r *http.Request) (protocol, bool) {
	if r.Method != http.MethodGet {
		return nil, false
	}
	switch {
	case r.URL.Path == "/v1/models" && r.Header.Get("Anthropic-Version") != "":
		return anthropicProtocol{}, true
	case strings.HasSuffix(r.URL.Path, "/models") && r.URL.Path != "/models":
		return openaiProtocol{}, true
	}
	return nil, false
}

// serveModels answers a model list in proto's wire format.
func (s *Server) serveModels(w http.ResponseWriter, proto protocol) {
	s.mu.Lock()
	names := s.models
	s.mu.Unlock()
	if names == nil {
		names = DefaultModels
	}
	var body any
	switch proto.(type) {
	case anthropicProtocol:
		data := make([]obj, len(names))
		for i, n := range names {
			data[i] = obj{{"type", "model"}, {"id", n}, {"display_name", n}, {"created_at", "2025-09-29T00:00:00Z"}}
		}
		var first, last any
		if len(names) > 0 {
			first, last = names[0], names[len(names)-1]
		}
		body = obj{{"data", data}, {"has_more", false}, {"first_id", first}, {"last_id", last}}
	default:
		data := make([]obj, len(names))
		created := time.Date(2025, 8, 7, 0, 0, 0, 0, time.UTC).Unix()
		for i, n := range names {
			data[i] = obj{{"id", n}, {"object", "model"}, {"created", created}, {"owned_by", "llmtest"}}
		}
		body = obj{{"object", "list"}, {"data", data}}
	}
	b, _ := json.Marshal(body)
	w.Header().Set("content-type", "application/json")
	_, _ = w.Write(b)
}
