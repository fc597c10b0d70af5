package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/anthropic"
	"github.com/bonsai-run/bonsai/internal/llm/catalog"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

// provider says how to reach one model provider.
type provider struct {
	keyVar  string // env var of the API key; "" when none is needed
	urlVar  string // env var of the base URL
	baseURL string // default base URL
	keyless bool   // a local server: no key needed
}

// providers are the built-in providers; every one but anthropic speaks
// OpenAI's Chat Completions.
var providers = map[string]provider{
	"anthropic":  {keyVar: "ANTHROPIC_API_KEY", urlVar: "ANTHROPIC_BASE_URL", baseURL: anthropic.DefaultBaseURL},
	"openai":     {keyVar: "OPENAI_API_KEY", urlVar: "OPENAI_BASE_URL", baseURL: "https://api.openai.com/v1"},
	"openrouter": {keyVar: "OPENROUTER_API_KEY", urlVar: "OPENROUTER_BASE_URL", baseURL: "https://openrouter.ai/api/v1"},
	"groq":       {keyVar: "GROQ_API_KEY", urlVar: "GROQ_BASE_URL", baseURL: "https://api.groq.com/openai/v1"},
	"gemini":     {keyVar: "GEMINI_API_KEY", urlVar: "GEMINI_BASE_URL", baseURL: "https://generativelanguage.googleapis.com/v1beta/openai"},
	"ollama":     {keyVar: "OLLAMA_API_KEY", urlVar: "OLLAMA_BASE_URL", baseURL: "http://localhost:11434/v1", keyless: true},
	"vllm":       {keyVar: "VLLM_API_KEY", urlVar: "VLLM_BASE_URL", baseURL: "http://localhost:8000/v1", keyless: true},
}

// modelResolver turns a "provider/model" id into a Model (with retries)
// and its Info, plus a warning for a model the catalog does not know.
type modelResolver func(id string) (llm.Model, llm.Info, string, error)

// envModels resolves models from keys and base URLs in the environment
// and limits and prices from the embedded catalog. Without a key it names
// the variable to set.
func envModels(getenv func(string) string, cat *catalog.Catalog) modelResolver {
	return func(id string) (llm.Model, llm.Info, string, error) {
		mid, err := llm.ParseModelID(id)
		if err != nil {
			return nil, llm.Info{}, "", usagef("%v", err)
		}
		p, ok := providers[mid.Provider]
		if !ok {
			return nil, llm.Info{}, "", usagef("model %s: unknown provider %q (known: %s)", mid, mid.Provider, knownProviders())
		}
		info, warning := cat.Lookup(mid.String())
		key, base := getenv(p.keyVar), getenv(p.urlVar)
		if base == "" {
			base = p.baseURL
		}
		if key == "" && !p.keyless {
			return nil, info, "", fmt.Errorf("no API key for %s: set %s (and %s for a compatible server)", mid, p.keyVar, p.urlVar)
		}
		var m llm.Model
		if mid.Provider == "anthropic" {
			m = anthropic.New(anthropic.Config{Model: mid.Model, APIKey: key, BaseURL: base, Info: info})
		} else {
			m = openai.New(openai.Config{Model: mid.Model, APIKey: key, BaseURL: base, Info: info, Provider: mid.Provider})
		}
		return llm.WithRetry(m, llm.RetryPolicy{}), info, warning, nil
	}
}

func knownProviders() string {
	names := make([]string, 0, len(providers))
	for n := range providers {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// resolveModel resolves id with envModels and the embedded catalog,
// dropping the catalog warning.
func resolveModel(getenv func(string) string, id string) (llm.Model, llm.Info, error) {
	m, info, _, err := envModels(getenv, catalog.Default())(id)
	return m, info, err
}
