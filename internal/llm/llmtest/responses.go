package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// responsesProtocol renders turns as OpenAI Responses API streaming
// events ("event: <type>" and "data: {...}" with the same type and a
// sequence_number counting from 0): response.created and
// response.in_progress, then per output item response.output_item.added,
// its own events and response.output_item.done, then response.completed
// (or response.incomplete, response.failed) carrying the whole response
// with its usage. There is no [DONE] line.
//
// A thinking part is a reasoning item: its text, split at blank lines,
// becomes the summary parts (sent only when the request set
// reasoning.summary) and its Signature the encrypted_content (sent only
// when the request's include lists "reasoning.encrypted_content"), as the
// real API does. A text part is a message item with one output_text part,
// or one refusal part when the turn's stop reason is [llm.StopRefusal]. A
// tool call is a function_call item whose call_id is the part's ID; a
// call of a tool the request declares as a custom (freeform) tool, such
// as Codex's apply_patch, is a custom_tool_call item whose input is the
// string "input" of the part's arguments.
//
// Stop reasons: [llm.StopLength] and [llm.StopContentFilter] end with
// response.incomplete (incomplete_details.reason max_output_tokens or
// content_filter); [llm.StopError] ends with response.failed carrying the
// turn's ErrorType (default server_error) and the message's ErrorMessage.
type responsesProtocol struct{}

func (responsesProtocol) errorBody(status int, errType, message string) []byte {
	return openaiProtocol{}.errorBody(status, errType, message)
}

func (responsesProtocol) errorEvent(w *streamWriter, errType, message string) {
	if errType == "" {
		errType = "server_error"
	}
	if message == "" {
		message = "The server had an error while processing your request. Sorry about that!"
	}
	w.write("error", mustJSON(obj{{"type", "error"}, {"sequence_number", w.n},
		{"code", errType}, {"message", message}, {"param", nil}}))
}

func (responsesProtocol) ping(w *streamWriter) {
	w.buf.WriteString(": keep-alive\n\n")
	w.flush()
}

func (responsesProtocol) filler(w *streamWriter) {
	w.write("response.output_text.delta", mustJSON(obj{{"type", "response.output_text.delta"},
		{"sequence_number", w.n}, {"item_id", "msg_test0"}, {"output_index", 0}, {"content_index", 0},
		{"delta", fillerText}, {"logprobs", []any{}}}))
}

// responsesStream holds what one streamed response needs.
type responsesStream struct {
	w      *streamWriter
	req    map[string]any
	size   int
	output []any // the items done so far, for the final response
}

// send writes one event of type typ with the given fields after its type
// and sequence number.
func (s *responsesStream) send(typ string, fields ...kv) bool {
	return s.w.event(typ, append(obj{{"type", typ}, {"sequence_number", s.w.n}}, fields...))
}

// response renders the response object as the events carry it.
func (s *responsesStream) response(status string, output []any, usage, incomplete, failure any) obj {
	model, _ := s.req["model"].(string)
	if model == "" {
		model = "gpt-5"
	}
	reasoning := obj{{"effort", nil}, {"summary", nil}}
	if r, ok := s.req["reasoning"].(map[string]any); ok {
		reasoning = obj{{"effort", r["effort"]}, {"summary", r["summary"]}}
	}
	store, ok := s.req["store"].(bool)
	if !ok {
		store = true
	}
	tools, _ := s.req["tools"].([]any)
	if tools == nil {
		tools = []any{}
	}
	parallel, ok := s.req["parallel_tool_calls"].(bool)
	if !ok {
		parallel = true
	}
	return obj{{"id", "resp_test"}, {"object", "response"}, {"created_at", 1700000000},
		{"status", status}, {"background", false}, {"error", failure}, {"incomplete_details", incomplete},
		{"instructions", s.req["instructions"]}, {"max_output_tokens", s.req["max_output_tokens"]},
		{"model", model}, {"output", output}, {"parallel_tool_calls", parallel},
		{"previous_response_id", nil}, {"prompt_cache_key", s.req["prompt_cache_key"]},
		{"reasoning", reasoning}, {"store", store}, {"temperature", 1.0},
		{"text", obj{{"format", obj{{"type", "text"}}}, {"verbosity", "medium"}}},
		{"tool_choice", "auto"}, {"tools", tools}, {"top_p", 1.0}, {"truncation", "disabled"},
		{"usage", usage}, {"user", nil}, {"metadata", obj{}}}
}

func (responsesProtocol) stream(w *streamWriter, turn ServerTurn, req map[string]any) {
	s := &responsesStream{w: w, req: req, size: chunkSize(turn)}
	msg := turn.Message
	stop := stopReason(msg)
	if !s.send("response.created", kv{"response", s.response("in_progress", []any{}, nil, nil, nil)}) ||
		!s.send("response.in_progress", kv{"response", s.response("in_progress", []any{}, nil, nil, nil)}) {
		return
	}
	for _, p := range msg.Content {
		ok := true
		switch p.Type {
		case llm.PartThinking:
			ok = s.reasoning(p)
		case llm.PartText:
			ok = s.message(p.Text, stop == llm.StopRefusal)
		case llm.PartToolCall:
			if customTool(req, p.Name) {
				ok = s.customCall(p)
			} else {
				ok = s.functionCall(p)
			}
		default:
			panic(fmt.Sprintf("llmtest: responses cannot stream a %q part", p.Type))
		}
		if !ok {
			return
		}
	}
	u := llm.Usage{}
	if msg.Usage != nil {
		u = *msg.Usage
	}
	input := u.Input + u.CacheRead + u.CacheWrite
	usage := obj{{"input_tokens", input},
		{"input_tokens_details", obj{{"cached_tokens", u.CacheRead}, {"cache_write_tokens", u.CacheWrite}}},
		{"output_tokens", u.Output},
		{"output_tokens_details", obj{{"reasoning_tokens", u.Reasoning}}},
		{"total_tokens", input + u.Output}}
	switch stop {
	case llm.StopLength, llm.StopContentFilter:
		reason := "max_output_tokens"
		if stop == llm.StopContentFilter {
			reason = "content_filter"
		}
		s.send("response.incomplete", kv{"response", s.response("incomplete", s.output, usage, obj{{"reason", reason}}, nil)})
	case llm.StopError:
		code := turn.ErrorType
		if code == "" {
			code = "server_error"
		}
		failure := obj{{"code", code}, {"message", msg.ErrorMessage}}
		s.send("response.failed", kv{"response", s.response("failed", s.output, nil, nil, failure)})
	default:
		s.send("response.completed", kv{"response", s.response("completed", s.output, usage, nil, nil)})
	}
}

// item opens an output item, runs body and closes the item with done,
// its final form.
func (s *responsesStream) item(added obj, body func(id string, index int) bool, done func() obj) bool {
	index := len(s.output)
	id, _ := added[0].v.(string)
	if !s.send("response.output_item.added", kv{"output_index", index}, kv{"item", added}) || !body(id, index) {
		return false
	}
	final := done()
	s.output = append(s.output, final)
	return s.send("response.output_item.done", kv{"output_index", index}, kv{"item", final})
}

func (s *responsesStream) reasoning(p llm.Part) bool {
	id := fmt.Sprintf("rs_test%d", len(s.output))
	var summaries []string
	if r, ok := s.req["reasoning"].(map[string]any); ok && r["summary"] != nil && r["summary"] != "" && p.Thinking != "" {
		summaries = strings.Split(p.Thinking, "\n\n")
	}
	encrypted := false
	if inc, ok := s.req["include"].([]any); ok {
		for _, v := range inc {
			encrypted = encrypted || v == "reasoning.encrypted_content"
		}
	}
	summary := []any{}
	added := obj{{"id", id}, {"type", "reasoning"}, {"summary", []any{}}}
	body := func(id string, index int) bool {
		for i, text := range summaries {
			at := []kv{{"item_id", id}, {"output_index", index}, {"summary_index", i}}
			if !s.send("response.reasoning_summary_part.added", append(at, kv{"part", obj{{"type", "summary_text"}, {"text", ""}}})...) {
				return false
			}
			for _, d := range Split(text, s.size) {
				if !s.send("response.reasoning_summary_text.delta", append(at, kv{"delta", d})...) {
					return false
				}
			}
			part := obj{{"type", "summary_text"}, {"text", text}}
			if !s.send("response.reasoning_summary_text.done", append(at, kv{"text", text})...) ||
				!s.send("response.reasoning_summary_part.done", append(at, kv{"part", part})...) {
				return false
			}
			summary = append(summary, part)
		}
		return true
	}
	done := func() obj {
		item := obj{{"id", id}, {"type", "reasoning"}, {"summary", summary}}
		if encrypted {
			item = append(item, kv{"encrypted_content", p.Signature})
		}
		return item
	}
	return s.item(added, body, done)
}

func (s *responsesStream) message(text string, refusal bool) bool {
	id := fmt.Sprintf("msg_test%d", len(s.output))
	added := obj{{"id", id}, {"type", "message"}, {"status", "in_progress"}, {"content", []any{}}, {"role", "assistant"}}
	var part obj
	body := func(id string, index int) bool {
		at := []kv{{"item_id", id}, {"output_index", index}, {"content_index", 0}}
		empty := obj{{"type", "output_text"}, {"annotations", []any{}}, {"logprobs", []any{}}, {"text", ""}}
		part = obj{{"type", "output_text"}, {"annotations", []any{}}, {"logprobs", []any{}}, {"text", text}}
		kind, deltaType, doneType, field := "text", "response.output_text.delta", "response.output_text.done", "text"
		if refusal {
			empty = obj{{"type", "refusal"}, {"refusal", ""}}
			part = obj{{"type", "refusal"}, {"refusal", text}}
			kind, deltaType, doneType, field = "refusal", "response.refusal.delta", "response.refusal.done", "refusal"
		}
		if !s.send("response.content_part.added", append(at, kv{"part", empty})...) {
			return false
		}
		for _, d := range Split(text, s.size) {
			fields := append(at, kv{"delta", d})
			if kind == "text" {
				fields = append(fields, kv{"logprobs", []any{}})
			}
			if !s.send(deltaType, fields...) {
				return false
			}
		}
		fields := append(at, kv{field, text})
		if kind == "text" {
			fields = append(fields, kv{"logprobs", []any{}})
		}
		return s.send(doneType, fields...) && s.send("response.content_part.done", append(at, kv{"part", part})...)
	}
	done := func() obj {
		return obj{{"id", id}, {"type", "message"}, {"status", "completed"}, {"content", []any{part}}, {"role", "assistant"}}
	}
	return s.item(added, body, done)
}

func (s *responsesStream) functionCall(p llm.Part) bool {
	id := fmt.Sprintf("fc_test%d", len(s.output))
	args := string(p.Arguments)
	// A call of a tool inside a namespace tool (Codex's MCP servers) is
	// scripted as "namespace::name" and sent as the API sends it: the
	// name, and the namespace beside it.
	name := []kv{{"name", p.Name}}
	if ns, n, ok := strings.Cut(p.Name, "::"); ok {
		name = []kv{{"name", n}, {"namespace", ns}}
	}
	added := append(obj{{"id", id}, {"type", "function_call"}, {"status", "in_progress"}, {"arguments", ""}, {"call_id", p.ID}}, name...)
	body := func(id string, index int) bool {
		at := []kv{{"item_id", id}, {"output_index", index}}
		for _, d := range Split(args, s.size) {
			if !s.send("response.function_call_arguments.delta", append(at, kv{"delta", d})...) {
				return false
			}
		}
		return s.send("response.function_call_arguments.done", append(append(at, name...), kv{"arguments", args})...)
	}
	done := func() obj {
		return append(obj{{"id", id}, {"type", "function_call"}, {"status", "completed"}, {"arguments", args}, {"call_id", p.ID}}, name...)
	}
	return s.item(added, body, done)
}

// customTool reports whether the request declares a custom tool name.
func customTool(req map[string]any, name string) bool {
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		if t, ok := t.(map[string]any); ok && t["type"] == "custom" && t["name"] == name {
			return true
		}
	}
	return false
}

// customCall streams a call of a custom tool: its input (the arguments'
// "input") in response.custom_tool_call_input.delta events.
func (s *responsesStream) customCall(p llm.Part) bool {
	id := fmt.Sprintf("ctc_test%d", len(s.output))
	var args struct {
		Input string `json:"input"`
	}
	if err := json.Unmarshal(p.Arguments, &args); err != nil {
		panic(fmt.Sprintf("llmtest: a call of custom tool %s needs arguments {\"input\": string}: %v", p.Name, err))
	}
	item := func(input string) obj {
		return obj{{"id", id}, {"type", "custom_tool_call"}, {"call_id", p.ID}, {"input", input}, {"name", p.Name}}
	}
	body := func(id string, index int) bool {
		at := []kv{{"item_id", id}, {"output_index", index}}
		for _, d := range Split(args.Input, s.size) {
			if !s.send("response.custom_tool_call_input.delta", append(at, kv{"delta", d})...) {
				return false
			}
		}
		return s.send("response.custom_tool_call_input.done", append(at, kv{"input", args.Input})...)
	}
	return s.item(item(""), body, func() obj { return item(args.Input) })
}
