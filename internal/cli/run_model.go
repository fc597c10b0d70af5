package cli

import (
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/anthropic"
)

// resolveModel turns a "provider/model" id into a Model (with retries) and
// its Info, reading keys and base URLs from the environment. Without a key
// it names the variable to set.
func resolveModel(getenv func(string) string, id string) (llm.Model, llm.Info, error) {
	mid, err := llm.ParseModelID(id)
	if err != nil {
		return nil, llm.Info{}, usagef("%v", err)
	}
	info := modelInfo(mid)
	switch mid.Provider {
	case "anthropic":
		key := getenv("ANTHROPIC_API_KEY")
		base := getenv("ANTHROPIC_BASE_URL")
		if key == "" {
			return nil, info, fmt.Errorf("no API key for %s: set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a compatible server)", mid)
		}
		m := anthropic.New(anthropic.Config{Model: mid.Model, APIKey: key, BaseURL: base, Info: info})
		return llm.WithRetry(m, llm.RetryPolicy{}), info, nil
	}
	return nil, info, usagef("model %s: provider %q is not supported yet (known: anthropic)", mid, mid.Provider)
}

// modelInfo returns conservative limits for a model until a catalog
// knows better.
func modelInfo(id llm.ModelID) llm.Info {
	info := llm.Info{ID: id.String(), ContextWindow: 128000, MaxOutputTokens: 16384}
	if id.Provider == "anthropic" || strings.Contains(id.Model, "claude") {
		info.ContextWindow, info.MaxOutputTokens, info.Images, info.Thinking = 200000, 32000, true, true
	}
	return info
}
