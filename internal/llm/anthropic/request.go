package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// defaultMaxTokens is the output cap when neither the request nor the
// catalog gives one.
const defaultMaxTokens = 8192

// maxDefaultOutput caps the catalog's output limit used as a default, so a
// request does not reserve 64k output tokens it rarely needs.
const maxDefaultOutput = 32000

// body encodes the Messages API request for req with encoding/json, from
// this package's wire types: the SDK's parameter types re-encode and
// re-validate the whole conversation on every request, which grew to
// milliseconds and megabytes a turn in long sessions. Each message's
// blocks come from the model's cache when it has them.
// The second result is the anthropic-beta header to send, if any.
func (m *Model) body(req llm.Request) (*llm.Body, string, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = min(m.cfg.Info.MaxOutputTokens, maxDefaultOutput)
		if maxTokens <= 0 {
			maxTokens = defaultMaxTokens
		}
	}
	var beta string
	var extra bytes.Buffer // thinking, output_config, temperature
	switch {
	case req.Thinking.Enabled() && m.cfg.Info.AdaptiveThinking:
		effort, _ := json.Marshal(string(req.Thinking))
		fmt.Fprintf(&extra, `,"thinking":{"type":"adaptive","display":"summarized"},"output_config":{"effort":%s}`, effort)
	case req.Thinking.Enabled():
		budget := req.Thinking.ThinkingBudget()
		if maxTokens <= budget {
			maxTokens = budget + defaultMaxTokens
			if lim := m.cfg.Info.MaxOutputTokens; lim > 0 && maxTokens > lim {
				maxTokens = lim
				budget = max(1024, lim/2)
			}
		}
		fmt.Fprintf(&extra, `,"thinking":{"type":"enabled","budget_tokens":%d}`, budget)
		// Thinking between tool calls needs this beta on Claude 4 models.
		beta = "interleaved-thinking-2025-05-14"
	case req.Temperature != nil:
		extra.WriteString(`,"temperature":`)
		extra.WriteString(strconv.FormatFloat(*req.Temperature, 'g', -1, 64))
	}

	tools, err := m.tools.Encode(req.Tools, encodeTools)
	if err != nil {
		return nil, "", err
	}
	msgs := req.Messages
	if !m.cfg.Info.Images {
		msgs = llm.WithoutImages(msgs)
	}
	if !m.cfg.Info.Documents {
		msgs = llm.WithoutDocuments(msgs)
	}
	turns, err := m.turns(msgs)
	if err != nil {
		return nil, "", err
	}

	model, _ := json.Marshal(m.cfg.Model)
	var b bytes.Buffer // everything before the messages
	b.Grow(len(tools) + len(req.System) + extra.Len() + 256)
	fmt.Fprintf(&b, `{"model":%s,"max_tokens":%d,"stream":true`, model, maxTokens)
	b.Write(extra.Bytes())
	if req.System != "" {
		system, _ := json.Marshal(req.System)
		b.WriteString(`,"system":[{"type":"text","text":`)
		b.Write(system)
		b.WriteString(`,"cache_control":{"type":"ephemeral"}}]`)
	}
	if len(tools) > 0 {
		b.WriteString(`,"tools":`)
		b.Write(tools)
	}
	b.WriteString(`,"messages":[`)
	body := new(llm.Body)
	body.Write(b.Bytes())
	writeTurns(body, turns)
	body.Write(closeAll)
	return body, beta, nil
}

// encodeTools returns the tools array with a cache breakpoint on the last
// tool, which caches the system prompt and all tools.
func encodeTools(specs []llm.ToolSpec) ([]byte, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, t := range specs {
		schema, err := inputSchema(t)
		if err != nil {
			return nil, err
		}
		enc, err := json.Marshal(tool{Name: t.Name, Description: t.Description, InputSchema: schema})
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		if i == len(specs)-1 {
			withCacheControl(&b, enc)
		} else {
			b.Write(enc)
		}
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// inputSchema returns the tool's parameters as an object schema: type
// "object" and properties (empty if absent), the rest kept as it is.
func inputSchema(t llm.ToolSpec) (json.RawMessage, error) {
	schema := map[string]json.RawMessage{}
	if len(t.Parameters) > 0 {
		if err := json.Unmarshal(t.Parameters, &schema); err != nil {
			return nil, &llm.Error{Kind: llm.KindInvalidRequest, Provider: "anthropic",
				Message: fmt.Sprintf("tool %s: parameters are not a JSON object: %v", t.Name, err)}
		}
	}
	if schema == nil { // "null"
		schema = map[string]json.RawMessage{}
	}
	schema["type"] = json.RawMessage(`"object"`)
	if _, ok := schema["properties"]; !ok {
		schema["properties"] = json.RawMessage(`{}`)
	}
	return json.Marshal(schema)
}

// turn is one message of the API request: its role and the encoded blocks
// of the llm messages merged into it.
type turn struct {
	role   llm.Role
	pieces [][]byte
}

// turns converts the conversation: tool results join the user turn that
// follows the assistant's tool calls, consecutive messages of one side
// merge, and assistant messages without content (failed or aborted before
// any output) are left out because the API refuses them.
func (m *Model) turns(msgs []llm.Message) ([]turn, error) {
	var out []turn
	for i := range msgs {
		enc, err := m.blocks(&msgs[i])
		if err != nil {
			return nil, err
		}
		if len(enc) == 0 {
			continue
		}
		role := llm.RoleUser
		if msgs[i].Role == llm.RoleAssistant {
			role = llm.RoleAssistant
		}
		// Roles must alternate: a retried or continued answer joins the
		// assistant turn before it, tool results and user text share a turn.
		if n := len(out); n > 0 && out[n-1].role == role {
			out[n-1].pieces = append(out[n-1].pieces, enc)
			continue
		}
		out = append(out, turn{role: role, pieces: [][]byte{enc}})
	}
	m.cache.Sweep()
	return out, nil
}

// blocks returns the encoded blocks of msg, from the cache when msg was
// encoded before.
func (m *Model) blocks(msg *llm.Message) ([]byte, error) {
	if enc, ok := m.cache.Get(msg); ok {
		return enc, nil
	}
	enc, err := encodeBlocks(*msg, m.cfg.Provider)
	if err != nil {
		return nil, err
	}
	// An assistant message still streaming is never sent, so every message
	// here is complete and its encoding stays valid.
	m.cache.Put(msg, enc)
	return enc, nil
}

// Constant pieces of the messages array.
var (
	comma          = []byte(",")
	userOpen       = []byte(`{"role":"user","content":[`)
	assistantOpen  = []byte(`{"role":"assistant","content":[`)
	closeAll       = []byte(`]}`)
	cacheControlCl = []byte(cacheControl)
)

// writeTurns writes the turns, with cache breakpoints on the last block of
// the last two user turns: the newest one caches the whole prefix for the
// next request, the one before lets this request read what the previous
// request wrote. Together with the system prompt and the last tool that
// makes four, the API's limit. The cached encodings are written as they
// are, never copied.
func writeTurns(b *llm.Body, turns []turn) {
	marked := map[int]bool{}
	for i := len(turns) - 1; i >= 0 && len(marked) < 2; i-- {
		if turns[i].role == llm.RoleUser {
			marked[i] = true
		}
	}
	for i, t := range turns {
		if i > 0 {
			b.Write(comma)
		}
		if t.role == llm.RoleUser {
			b.Write(userOpen)
		} else {
			b.Write(assistantOpen)
		}
		for j, enc := range t.pieces {
			if j > 0 {
				b.Write(comma)
			}
			if marked[i] && j == len(t.pieces)-1 {
				// The block's closing brace gives way to the breakpoint.
				b.Write(enc[:len(enc)-1])
				b.Write(cacheControlCl)
			} else {
				b.Write(enc)
			}
		}
		b.Write(closeAll)
	}
}
