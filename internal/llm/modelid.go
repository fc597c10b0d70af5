package llm

import "strings"

// ModelID is a model named "provider/model". The model part may itself
// contain slashes (OpenRouter's "openrouter/anthropic/claude-sonnet-4.5")
// and colons (Ollama's "ollama/qwen3:8b").
type ModelID struct {
	Provider string
	Model    string
}

// ParseModelID splits "provider/model" at the first slash.
func ParseModelID(s string) (ModelID, error) {
	provider, model, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || provider == "" || model == "" {
		return ModelID{}, &Error{Kind: KindInvalidRequest,
			Message: "model id " + quote(s) + " is not of the form provider/model (for example anthropic/claude-sonnet-4-5)"}
	}
	return ModelID{Provider: strings.ToLower(provider), Model: model}, nil
}

// String returns "provider/model".
func (id ModelID) String() string { return id.Provider + "/" + id.Model }
