package llm

import (
	"bytes"
	"encoding/json"
)

// Role says who produced a message.
type Role string

// The roles of a conversation.
const (
	RoleUser       Role = "user"
	RoleAssistant  Role = "assistant"
	RoleToolResult Role = "toolResult"
)

// PartType names the kind of a content part.
type PartType string

// The content part types.
const (
	PartText     PartType = "text"
	PartImage    PartType = "image"
	PartThinking PartType = "thinking"
	PartToolCall PartType = "toolCall"
)

// StopReason says why an assistant message ended.
type StopReason string

// The stop reasons.
const (
	StopEnd     StopReason = "stop"     // the model finished its answer
	StopToolUse StopReason = "tool_use" // the model asked for tools
	StopLength  StopReason = "length"   // the output token limit was reached
	StopAborted StopReason = "aborted"  // the context was cancelled
	StopError   StopReason = "error"    // the request or the stream failed
	// StopRefusal: the model declined to answer; the message's text is the
	// provider's refusal.
	StopRefusal StopReason = "refusal"
	// StopContentFilter: the provider's content filter cut the answer.
	StopContentFilter StopReason = "content_filter"
)

// Message is one message of a conversation. Which fields are set depends
// on the role: ToolCallID, ToolName and IsError belong to tool results;
// Provider, Model, StopReason, Usage and ErrorMessage to assistant messages.
type Message struct {
	Role    Role   `json:"role"`
	Content []Part `json:"content"`

	// Tool results.
	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	IsError    bool   `json:"isError,omitempty"`

	// Assistant messages.
	Provider     string     `json:"provider,omitempty"`
	Model        string     `json:"model,omitempty"`
	StopReason   StopReason `json:"stopReason,omitempty"`
	Usage        *Usage     `json:"usage,omitempty"`
	ErrorMessage string     `json:"errorMessage,omitempty"`
}

// Part is one typed piece of a message's content. Only the fields of its
// Type are set; the others stay empty and are omitted from JSON.
type Part struct {
	Type PartType `json:"type"`

	// Text parts.
	Text string `json:"text,omitempty"`

	// Thinking parts. Signature is the provider's opaque token that must be
	// sent back unchanged; for redacted thinking it holds the encrypted
	// payload and Thinking is empty.
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Redacted  bool   `json:"redacted,omitempty"`

	// Image parts: MIME type and base64-encoded bytes.
	MimeType string `json:"mimeType,omitempty"`
	Data     string `json:"data,omitempty"`

	// Tool calls. Arguments is always valid JSON: the object the model sent,
	// "{}" when it sent nothing, or, when it sent text that does not parse,
	// that text as a JSON string so argument validation can report it.
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Text returns a text part.
func Text(s string) Part { return Part{Type: PartText, Text: s} }

// Image returns an image part from a MIME type and base64 data.
func Image(mimeType, base64Data string) Part {
	return Part{Type: PartImage, MimeType: mimeType, Data: base64Data}
}

// ToolCall returns a tool call part; args are normalised by [ToolArguments].
func ToolCall(id, name string, args []byte) Part {
	return Part{Type: PartToolCall, ID: id, Name: name, Arguments: ToolArguments(args)}
}

// ToolArguments normalises raw tool-call input to valid JSON: empty input
// becomes {}, valid JSON is kept (compacted), anything else is wrapped as
// a JSON string.
func ToolArguments(raw []byte) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(raw) {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err == nil {
			return json.RawMessage(b.Bytes())
		}
	}
	s, _ := json.Marshal(string(raw))
	return s
}

// UserText returns a user message holding one text part.
func UserText(s string) Message {
	return Message{Role: RoleUser, Content: []Part{Text(s)}}
}

// ToolResultText returns a tool result message holding one text part.
func ToolResultText(callID, toolName, text string, isError bool) Message {
	return Message{Role: RoleToolResult, ToolCallID: callID, ToolName: toolName,
		IsError: isError, Content: []Part{Text(text)}}
}

// Text returns the concatenation of the message's text parts.
func (m *Message) Text() string {
	var n int
	for _, p := range m.Content {
		if p.Type == PartText {
			n += len(p.Text)
		}
	}
	b := make([]byte, 0, n)
	for _, p := range m.Content {
		if p.Type == PartText {
			b = append(b, p.Text...)
		}
	}
	return string(b)
}

// ToolCalls returns the message's tool call parts in order.
func (m *Message) ToolCalls() []Part {
	var calls []Part
	for _, p := range m.Content {
		if p.Type == PartToolCall {
			calls = append(calls, p)
		}
	}
	return calls
}
