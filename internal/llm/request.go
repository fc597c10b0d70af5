package llm

import "encoding/json"

// Request is everything a model needs for one response.
type Request struct {
	// System is the system prompt.
	System string
	// Messages is the conversation so far, oldest first.
	Messages []Message
	// Tools are the tools the model may call.
	Tools []ToolSpec
	// MaxTokens caps the output; 0 means the model's default from its Info.
	MaxTokens int
	// Temperature is nil for the provider's default. Adapters drop it where
	// the provider refuses it (extended thinking, reasoning models).
	Temperature *float64
	// Thinking asks for extended thinking or reasoning; "" means off.
	Thinking ThinkingLevel
	// SessionID, when set, lets providers that support it route requests of
	// one session to the same prompt cache.
	SessionID string
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the tool's arguments (an object schema).
	Parameters json.RawMessage `json:"parameters"`
}

// ThinkingLevel is how much the model should think before answering.
type ThinkingLevel string

// The thinking levels.
const (
	ThinkingOff    ThinkingLevel = "off"
	ThinkingLow    ThinkingLevel = "low"
	ThinkingMedium ThinkingLevel = "medium"
	ThinkingHigh   ThinkingLevel = "high"
)

// ParseThinkingLevel parses "off", "low", "medium" or "high" ("" is off).
func ParseThinkingLevel(s string) (ThinkingLevel, error) {
	switch l := ThinkingLevel(s); l {
	case "", ThinkingOff:
		return ThinkingOff, nil
	case ThinkingLow, ThinkingMedium, ThinkingHigh:
		return l, nil
	}
	return "", &Error{Kind: KindInvalidRequest, Message: "thinking level " + quote(s) + " is not one of off, low, medium, high"}
}

// Enabled reports whether the level asks for thinking.
func (l ThinkingLevel) Enabled() bool { return l != "" && l != ThinkingOff }

// ThinkingBudget returns the token budget used for a level by providers
// that take a budget rather than an effort (Anthropic).
func (l ThinkingLevel) ThinkingBudget() int {
	switch l {
	case ThinkingLow:
		return 2048
	case ThinkingMedium:
		return 8192
	case ThinkingHigh:
		return 24576
	}
	return 0
}
