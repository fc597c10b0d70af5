package anthropic

import (
	"bytes"
	"encoding/json"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// The Messages API's content blocks as this adapter sends them. Each
// message's blocks are encoded once and cached (see [Model.blocks]), so a
// request re-encodes only what is new.

type textBlock struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type imageSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type imageBlock struct {
	Type   string      `json:"type"` // "image"
	Source imageSource `json:"source"`
}

// documentBlock is a PDF, its source of the same shape as an image's.
type documentBlock struct {
	Type   string      `json:"type"` // "document"
	Source imageSource `json:"source"`
}

type toolResultBlock struct {
	Type      string `json:"type"` // "tool_result"
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error,omitempty"`
	Content   []any  `json:"content,omitempty"`
}

type thinkingBlock struct {
	Type      string `json:"type"` // "thinking"
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type redactedThinkingBlock struct {
	Type string `json:"type"` // "redacted_thinking"
	Data string `json:"data"`
}

type toolUseBlock struct {
	Type  string          `json:"type"` // "tool_use"
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// cacheControl is spliced into the last block of a cache breakpoint.
const cacheControl = `,"cache_control":{"type":"ephemeral"}}`

// withCacheControl writes the encoded blocks enc to b with a cache
// breakpoint on the last one (the object enc ends with).
func withCacheControl(b *bytes.Buffer, enc []byte) {
	b.Write(enc[:len(enc)-1])
	b.WriteString(cacheControl)
}

func imageOf(p llm.Part) imageBlock {
	return imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: p.MimeType, Data: p.Data}}
}

// documentOf returns a document block, or a text block saying the
// document is not loaded (a resumed transcript keeps no bytes).
func documentOf(p llm.Part) any {
	if p.Data == "" {
		return textBlock{Type: "text", Text: llm.DocumentNotLoaded(p)}
	}
	return documentBlock{Type: "document", Source: imageSource{Type: "base64", MediaType: p.MimeType, Data: p.Data}}
}

// encodeBlocks returns msg's content blocks, comma-separated, or nil when
// it has none the API would take.
func encodeBlocks(msg llm.Message, provider string) ([]byte, error) {
	var blocks []any
	switch msg.Role {
	case llm.RoleAssistant:
		blocks = assistantBlocks(msg, provider)
	case llm.RoleToolResult:
		blocks = []any{toolResult(msg)}
	default:
		for _, p := range msg.Content {
			switch {
			case p.Type == llm.PartText && p.Text != "":
				blocks = append(blocks, textBlock{Type: "text", Text: p.Text})
			case p.Type == llm.PartImage:
				blocks = append(blocks, imageOf(p))
			case p.Type == llm.PartDocument:
				blocks = append(blocks, documentOf(p))
			}
		}
	}
	var out []byte
	for i, blk := range blocks {
		enc, err := json.Marshal(blk)
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

func toolResult(msg llm.Message) toolResultBlock {
	r := toolResultBlock{Type: "tool_result", ToolUseID: msg.ToolCallID, IsError: msg.IsError}
	for _, p := range msg.Content {
		switch {
		case p.Type == llm.PartText && p.Text != "":
			r.Content = append(r.Content, textBlock{Type: "text", Text: p.Text})
		case p.Type == llm.PartImage:
			r.Content = append(r.Content, imageOf(p))
		case p.Type == llm.PartDocument:
			r.Content = append(r.Content, documentOf(p))
		}
	}
	return r
}

// assistantBlocks converts an assistant message. Thinking is sent back only
// when it came from this provider with a signature: signatures from other
// providers or models would be refused.
func assistantBlocks(msg llm.Message, provider string) []any {
	own := msg.Provider == "" || msg.Provider == provider
	var blocks []any
	for _, p := range msg.Content {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				blocks = append(blocks, textBlock{Type: "text", Text: p.Text})
			}
		case llm.PartThinking:
			switch {
			case !own || p.Signature == "":
				continue
			case p.Redacted:
				blocks = append(blocks, redactedThinkingBlock{Type: "redacted_thinking", Data: p.Signature})
			default:
				blocks = append(blocks, thinkingBlock{Type: "thinking", Thinking: p.Thinking, Signature: p.Signature})
			}
		case llm.PartToolCall:
			args := p.Arguments
			if !json.Valid(args) || len(args) == 0 || args[0] != '{' {
				// The API needs an object; the model's broken input was already
				// answered with an error result.
				args = json.RawMessage("{}")
			}
			blocks = append(blocks, toolUseBlock{Type: "tool_use", ID: p.ID, Name: p.Name, Input: args})
		}
	}
	return blocks
}
