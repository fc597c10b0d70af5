package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// The Responses API's input items as this adapter sends them. Each llm
// message becomes one or more items, encoded once and cached.

type inputContent struct {
	Type     string `json:"type"` // input_text, input_image, input_file, output_text
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	Filename string `json:"filename,omitempty"`
	FileData string `json:"file_data,omitempty"`
}

type messageItem struct {
	Type    string         `json:"type"` // "message"
	Role    string         `json:"role"`
	Content []inputContent `json:"content"`
}

type summaryText struct {
	Type string `json:"type"` // "summary_text"
	Text string `json:"text"`
}

// reasoningItem is sent without its id: with store false the API keeps
// nothing the id could refer to, and the encrypted content carries the
// reasoning.
type reasoningItem struct {
	Type             string        `json:"type"` // "reasoning"
	Summary          []summaryText `json:"summary"`
	EncryptedContent string        `json:"encrypted_content"`
}

type functionCallItem struct {
	Type      string `json:"type"` // "function_call"
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// functionCallOutputItem's Output is the result's text, or a list of
// input_text and input_image parts when the result carries images.
type functionCallOutputItem struct {
	Type   string `json:"type"` // "function_call_output"
	CallID string `json:"call_id"`
	Output any    `json:"output"`
}

// reasoningInclude asks for the encrypted reasoning a stateless request
// must send back.
const reasoningInclude = `,"include":["reasoning.encrypted_content"]`

// body encodes the Responses request for req, asking for reasoning
// summaries when summary is set.
func (m *ResponsesModel) body(req llm.Request, summary bool) (*llm.Body, error) {
	var head bytes.Buffer
	model, _ := json.Marshal(m.cfg.Model)
	fmt.Fprintf(&head, `{"model":%s,"stream":true,"store":false`, model)
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = min(m.cfg.Info.MaxOutputTokens, maxDefaultOutput)
	}
	if maxTokens > 0 {
		fmt.Fprintf(&head, `,"max_output_tokens":%d`, maxTokens)
	}
	reasoning := m.cfg.Info.Thinking
	if reasoning {
		head.WriteString(reasoningInclude)
		writeReasoning(&head, effort(req.Thinking, m.cfg.Info), summary)
	}
	if req.Temperature != nil && !reasoning {
		head.WriteString(`,"temperature":`)
		head.WriteString(strconv.FormatFloat(*req.Temperature, 'g', -1, 64))
	}
	if req.SessionID != "" && m.cfg.Provider == "openai" {
		key, _ := json.Marshal(req.SessionID)
		head.WriteString(`,"prompt_cache_key":`)
		head.Write(key)
	}
	if req.System != "" {
		system, _ := json.Marshal(req.System)
		head.WriteString(`,"instructions":`)
		head.Write(system)
	}
	if err := m.writeResponsesTools(&head, req.Tools); err != nil {
		return nil, err
	}

	msgs := req.Messages
	if !m.cfg.Info.Images {
		msgs = llm.WithoutImages(msgs)
	}
	if !m.cfg.Info.Documents {
		msgs = llm.WithoutDocuments(msgs)
	}
	b := new(llm.Body)
	head.WriteString(`,"input":[`)
	b.Write(head.Bytes())
	first := true
	for i := range msgs {
		enc, err := m.items(&msgs[i])
		if err != nil {
			return nil, err
		}
		if len(enc) == 0 {
			continue
		}
		if !first {
			b.Write(comma)
		}
		first = false
		b.Write(enc)
	}
	m.cache.Sweep()
	b.Write(closeAll)
	return b, nil
}

// writeReasoning writes the reasoning object: the effort, if any, and
// the summary when asked for.
func writeReasoning(b *bytes.Buffer, effort string, summary bool) {
	var fields []string
	if effort != "" {
		e, _ := json.Marshal(effort)
		fields = append(fields, `"effort":`+string(e))
	}
	if summary {
		fields = append(fields, `"summary":"auto"`)
	}
	b.WriteString(`,"reasoning":{` + strings.Join(fields, ",") + `}`)
}

// effort is the reasoning effort sent for level: the level when thinking
// is on; when off, the lowest effort the catalog says the model accepts
// (Info.MinEffort), else none (the model's default).
func effort(level llm.ThinkingLevel, info llm.Info) string {
	if level.Enabled() {
		return string(level)
	}
	return info.MinEffort
}

// writeResponsesTools writes the tools array, if any: function tools
// with their name at the top level, encoded once for the list the run
// sends with every request (m.tools).
func (m *ResponsesModel) writeResponsesTools(b *bytes.Buffer, specs []llm.ToolSpec) error {
	if len(specs) == 0 {
		return nil
	}
	enc, err := m.tools.Encode(specs, func(specs []llm.ToolSpec) ([]byte, error) {
		return responsesTools(specs, m.cfg.Provider)
	})
	if err != nil {
		return err
	}
	b.WriteString(`,"tools":`)
	b.Write(enc)
	return nil
}

// responsesTools encodes the tools array of a Responses API request.
func responsesTools(specs []llm.ToolSpec, provider string) ([]byte, error) {
	type tool struct {
		Type        string          `json:"type"` // "function"
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
		Strict      bool            `json:"strict"`
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, t := range specs {
		params, err := parameters(t, provider)
		if err != nil {
			return nil, err
		}
		enc, err := json.Marshal(tool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
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

// parameters returns a tool's parameters schema, nil when it has none, or
// an error when it is not a JSON object.
func parameters(t llm.ToolSpec, provider string) (json.RawMessage, error) {
	if len(t.Parameters) == 0 {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(t.Parameters, &obj); err != nil {
		return nil, &llm.Error{Kind: llm.KindInvalidRequest, Provider: provider,
			Message: fmt.Sprintf("tool %s: parameters are not a JSON object: %v", t.Name, err)}
	}
	if obj == nil {
		return nil, nil
	}
	return t.Parameters, nil
}

// items returns msg's input items, comma-separated, from the cache when
// msg was encoded before.
func (m *ResponsesModel) items(msg *llm.Message) ([]byte, error) {
	if enc, ok := m.cache.Get(msg); ok {
		return enc, nil
	}
	enc, err := encodeItems(*msg, m.cfg.Provider)
	if err != nil {
		return nil, err
	}
	m.cache.Put(msg, enc)
	return enc, nil
}

// encodeItems converts one message into its input items, or nil when
// nothing is sent.
func encodeItems(msg llm.Message, provider string) ([]byte, error) {
	var items []any
	switch msg.Role {
	case llm.RoleAssistant:
		items = assistantItems(msg, provider)
	case llm.RoleToolResult:
		items = []any{functionCallOutput(msg)}
	default:
		var content []inputContent
		for _, p := range msg.Content {
			switch p.Type {
			case llm.PartText:
				if p.Text != "" {
					content = append(content, inputContent{Type: "input_text", Text: p.Text})
				}
			case llm.PartImage:
				content = append(content, inputImage(p))
			case llm.PartDocument:
				content = append(content, inputFile(p))
			}
		}
		if len(content) > 0 {
			items = []any{messageItem{Type: "message", Role: "user", Content: content}}
		}
	}
	var out []byte
	for i, it := range items {
		enc, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, enc...)
	}
	return out, nil
}

func inputImage(p llm.Part) inputContent {
	return inputContent{Type: "input_image", ImageURL: "data:" + p.MimeType + ";base64," + p.Data}
}

// inputFile returns an input_file part, or an input_text part saying the
// document is not loaded (a resumed transcript keeps no bytes).
func inputFile(p llm.Part) inputContent {
	if p.Data == "" {
		return inputContent{Type: "input_text", Text: llm.DocumentNotLoaded(p)}
	}
	return inputContent{Type: "input_file", Filename: llm.DocumentFilename(p), FileData: "data:" + p.MimeType + ";base64," + p.Data}
}

// assistantItems converts an assistant message, part by part in order.
// Reasoning goes back only when it came from this provider with its
// encrypted content: another provider's thinking cannot be decrypted.
func assistantItems(msg llm.Message, provider string) []any {
	own := msg.Provider == "" || msg.Provider == provider
	var items []any
	for _, p := range msg.Content {
		switch p.Type {
		case llm.PartThinking:
			if !own || p.Signature == "" {
				continue
			}
			summary := []summaryText{}
			if p.Thinking != "" {
				summary = append(summary, summaryText{Type: "summary_text", Text: p.Thinking})
			}
			items = append(items, reasoningItem{Type: "reasoning", Summary: summary, EncryptedContent: p.Signature})
		case llm.PartText:
			if p.Text == "" {
				continue
			}
			items = append(items, messageItem{Type: "message", Role: "assistant",
				Content: []inputContent{{Type: "output_text", Text: p.Text}}})
		case llm.PartToolCall:
			items = append(items, functionCallItem{Type: "function_call", CallID: p.ID, Name: p.Name,
				Arguments: string(llm.ToolArguments(p.Arguments))})
		}
	}
	return items
}

// functionCallOutput converts a tool result: its text, or its text and
// images as input parts.
func functionCallOutput(msg llm.Message) functionCallOutputItem {
	text := joinText(msg.Content)
	if msg.IsError && text == "" {
		text = "error"
	}
	out := functionCallOutputItem{Type: "function_call_output", CallID: msg.ToolCallID, Output: text}
	var parts []inputContent
	for _, p := range msg.Content {
		switch p.Type {
		case llm.PartImage:
			parts = append(parts, inputImage(p))
		case llm.PartDocument:
			parts = append(parts, inputFile(p))
		}
	}
	if len(parts) > 0 {
		if text != "" {
			parts = append([]inputContent{{Type: "input_text", Text: text}}, parts...)
		}
		out.Output = parts
	}
	return out
}
