package openai

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

// maxDefaultOutput caps the catalog's output limit used as a default.
const maxDefaultOutput = 32000

// body encodes the Chat Completions request for req with encoding/json,
// from this package's wire types: the SDK's parameter types re-encode the
// whole conversation through reflection on every request, which grew to
// milliseconds and megabytes a turn in long sessions. Each message's
// encoding comes from the model's cache when it has one.
func (m *Model) body(req llm.Request) (*llm.Body, error) {
	var head bytes.Buffer
	model, _ := json.Marshal(m.cfg.Model)
	fmt.Fprintf(&head, `{"model":%s,"stream":true,"stream_options":{"include_usage":true}`, model)
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = min(m.cfg.Info.MaxOutputTokens, maxDefaultOutput)
	}
	if maxTokens > 0 {
		field := "max_completion_tokens"
		if m.cfg.LegacyMaxTokens {
			field = "max_tokens"
		}
		fmt.Fprintf(&head, `,%q:%d`, field, maxTokens)
	}
	reasoning := m.cfg.Info.Thinking
	if e := effort(req.Thinking, m.cfg.Info); reasoning && e != "" {
		effort, _ := json.Marshal(e)
		head.WriteString(`,"reasoning_effort":`)
		head.Write(effort)
	}
	// Reasoning models refuse any temperature but the default.
	if req.Temperature != nil && !reasoning {
		head.WriteString(`,"temperature":`)
		head.WriteString(strconv.FormatFloat(*req.Temperature, 'g', -1, 64))
	}
	if req.SessionID != "" && m.cfg.Provider == "openai" {
		key, _ := json.Marshal(req.SessionID)
		head.WriteString(`,"prompt_cache_key":`)
		head.Write(key)
	}
	if err := m.writeTools(&head, req.Tools); err != nil {
		return nil, err
	}

	msgs := req.Messages
	if !m.cfg.Info.Images {
		msgs = llm.WithoutImages(msgs)
	}
	if !m.cfg.Info.Documents {
		msgs = llm.WithoutDocuments(msgs)
	}
	encs := make([]encodedMessage, len(msgs))
	for i := range msgs {
		enc, err := m.encoded(&msgs[i])
		if err != nil {
			return nil, err
		}
		encs[i] = enc
	}
	m.cache.Sweep()

	// The cached encodings are written as they are, never copied.
	b := new(llm.Body)
	head.WriteString(`,"messages":[`)
	b.Write(head.Bytes())
	first := true
	write := func(enc []byte) {
		if !first {
			b.Write(comma)
		}
		first = false
		b.Write(enc)
	}
	if req.System != "" {
		system, _ := json.Marshal(chatMessage{Role: "system", Content: req.System})
		write(system)
	}
	// Images from tool results follow the turn's tool messages in one
	// user message.
	var images [][]byte
	flush := func() {
		if len(images) == 0 {
			return
		}
		write([]byte(`{"role":"user","content":[{"type":"text","text":"` + imagesIntro + `"}`))
		for _, img := range images {
			b.Write(comma)
			b.Write(img)
		}
		b.Write(closeAll)
		images = nil
	}
	for i, enc := range encs {
		if msgs[i].Role != llm.RoleToolResult {
			flush()
		}
		if enc.msg != nil {
			write(enc.msg)
		}
		if enc.images != nil {
			images = append(images, enc.images)
		}
	}
	flush()
	b.Write(closeAll)
	return b, nil
}

// Constant pieces of the body.
var (
	comma    = []byte(",")
	closeAll = []byte(`]}`)
)

// writeTools writes the tools array, if any, encoded once for the list
// the run sends with every request (m.tools).
func (m *Model) writeTools(b *bytes.Buffer, specs []llm.ToolSpec) error {
	if len(specs) == 0 {
		return nil
	}
	enc, err := m.tools.Encode(specs, m.chatTools)
	if err != nil {
		return err
	}
	b.WriteString(`,"tools":`)
	b.Write(enc)
	return nil
}

// chatTools encodes the tools array of a Chat Completions request.
func (m *Model) chatTools(specs []llm.ToolSpec) ([]byte, error) {
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	type tool struct {
		Type     string   `json:"type"` // "function"
		Function function `json:"function"`
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, t := range specs {
		fn := function{Name: t.Name, Description: t.Description}
		if len(t.Parameters) > 0 {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(t.Parameters, &obj); err != nil {
				return nil, &llm.Error{Kind: llm.KindInvalidRequest, Provider: m.cfg.Provider,
					Message: fmt.Sprintf("tool %s: parameters are not a JSON object: %v", t.Name, err)}
			}
			if obj != nil {
				fn.Parameters = t.Parameters
			}
		}
		enc, err := json.Marshal(tool{Type: "function", Function: fn})
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(enc)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// encoded returns msg on the wire, from the cache when msg was encoded
// before.
func (m *Model) encoded(msg *llm.Message) (encodedMessage, error) {
	if enc, ok := m.cache.Get(msg); ok {
		return enc, nil
	}
	enc, err := encodeMessage(*msg, &m.cfg)
	if err != nil {
		return enc, err
	}
	m.cache.Put(msg, enc)
	return enc, nil
}
