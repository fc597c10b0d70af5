package openai

import (
	"encoding/json"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// The Chat Completions messages as this adapter sends them. Each llm
// message is encoded once and cached (see [Model.encoded]), so a request
// re-encodes only what is new.

type textPart struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type imageURLPart struct {
	Type     string   `json:"type"` // "image_url"
	ImageURL imageURL `json:"image_url"`
}

type imageURL struct {
	URL string `json:"url"`
}

type toolCallFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type toolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"` // "function"
	Function toolCallFunction `json:"function"`
}

// chatMessage is a system, user, assistant or tool message. Content is a
// string or a list of parts; assistant messages with only tool calls have
// none.
type chatMessage struct {
	Role             string     `json:"role"`
	Content          any        `json:"content,omitempty"`
	ReasoningContent *string    `json:"reasoning_content,omitempty"`
	Reasoning        *string    `json:"reasoning,omitempty"`
	ToolCalls        []toolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
}

// encodedMessage is one llm message on the wire: the message itself (nil
// when nothing is sent) and, for a tool result, its images as
// comma-separated parts for the user message that follows the turn's tool
// messages.
type encodedMessage struct {
	msg    []byte
	images []byte
}

// imagesIntro opens the user message carrying tool results' images.
const imagesIntro = "Images returned by the tool calls above:"

func encodeMessage(msg llm.Message, cfg *Config) (encodedMessage, error) {
	var out encodedMessage
	var cm chatMessage
	switch msg.Role {
	case llm.RoleAssistant:
		a, ok := assistant(msg, cfg)
		if !ok {
			return out, nil
		}
		cm = a
	case llm.RoleToolResult:
		text := joinText(msg.Content)
		if msg.IsError && text == "" {
			text = "error"
		}
		// An empty tool result still has a content field.
		cm = chatMessage{Role: "tool", Content: &text, ToolCallID: msg.ToolCallID}
		for _, p := range msg.Content {
			if p.Type != llm.PartImage {
				continue
			}
			enc, err := json.Marshal(imagePart(p))
			if err != nil {
				return out, err
			}
			if len(out.images) > 0 {
				out.images = append(out.images, ',')
			}
			out.images = append(out.images, enc...)
		}
	default:
		cm = user(msg)
	}
	enc, err := json.Marshal(cm)
	out.msg = enc
	return out, err
}

func user(msg llm.Message) chatMessage {
	if len(msg.Content) == 1 && msg.Content[0].Type == llm.PartText {
		return chatMessage{Role: "user", Content: &msg.Content[0].Text}
	}
	parts := []any{}
	for _, p := range msg.Content {
		switch p.Type {
		case llm.PartText:
			parts = append(parts, textPart{Type: "text", Text: p.Text})
		case llm.PartImage:
			parts = append(parts, imagePart(p))
		}
	}
	if len(parts) == 0 {
		return chatMessage{Role: "user"} // as the SDK sent it: no content field
	}
	return chatMessage{Role: "user", Content: parts}
}

func imagePart(p llm.Part) imageURLPart {
	return imageURLPart{Type: "image_url", ImageURL: imageURL{URL: "data:" + p.MimeType + ";base64," + p.Data}}
}

// assistant converts an assistant message; a message left empty is not
// sent. Thinking goes back only where the provider asks for it
// (cfg.ReasoningField), on messages with tool calls: the turns whose
// reasoning the model continues from. It is this provider's own reasoning
// text, or an empty field when there is none (another provider's turn),
// since a provider that requires the field refuses a turn without it.
func assistant(msg llm.Message, cfg *Config) (chatMessage, bool) {
	a := chatMessage{Role: "assistant"}
	if text := joinText(msg.Content); text != "" {
		a.Content = text
	}
	for _, p := range msg.Content {
		if p.Type != llm.PartToolCall {
			continue
		}
		a.ToolCalls = append(a.ToolCalls, toolCall{ID: p.ID, Type: "function",
			Function: toolCallFunction{Name: p.Name, Arguments: string(llm.ToolArguments(p.Arguments))}})
	}
	if len(a.ToolCalls) > 0 && cfg.ReasoningField != "" {
		r := ""
		if msg.Provider == "" || msg.Provider == cfg.Provider {
			r = joinThinking(msg.Content)
		}
		if cfg.ReasoningField == "reasoning" {
			a.Reasoning = &r
		} else {
			a.ReasoningContent = &r
		}
	}
	return a, a.Content != nil || len(a.ToolCalls) > 0
}

// joinThinking returns the text of the readable thinking parts.
func joinThinking(parts []llm.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type == llm.PartThinking && !p.Redacted {
			b.WriteString(p.Thinking)
		}
	}
	return b.String()
}

func joinText(parts []llm.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type == llm.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
