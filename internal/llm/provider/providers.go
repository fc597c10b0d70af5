package provider

import "sort"

// API is the wire protocol a provider speaks.
type API string

// The supported protocols.
const (
	APIAnthropic API = "anthropic" // Anthropic Messages
	APIOpenAI    API = "openai"    // OpenAI Chat Completions
)

// Provider describes a built-in provider.
type Provider struct {
	Name string
	API  API
	// KeyEnv names the environment variable holding the API key.
	KeyEnv string
	// KeyOptional is true for local servers that need no key.
	KeyOptional bool
	// BaseURLEnv names the environment variable overriding BaseURL.
	BaseURLEnv string
	// BaseURL is the default API root.
	BaseURL string
	// LegacyMaxTokens sends max_tokens rather than max_completion_tokens.
	LegacyMaxTokens bool
}

// Builtin lists the providers Bonsai knows by name.
var Builtin = map[string]Provider{
	"anthropic":  {Name: "anthropic", API: APIAnthropic, KeyEnv: "ANTHROPIC_API_KEY", BaseURLEnv: "ANTHROPIC_BASE_URL", BaseURL: "https://api.anthropic.com"},
	"openai":     {Name: "openai", API: APIOpenAI, KeyEnv: "OPENAI_API_KEY", BaseURLEnv: "OPENAI_BASE_URL", BaseURL: "https://api.openai.com/v1"},
	"openrouter": {Name: "openrouter", API: APIOpenAI, KeyEnv: "OPENROUTER_API_KEY", BaseURLEnv: "OPENROUTER_BASE_URL", BaseURL: "https://openrouter.ai/api/v1", LegacyMaxTokens: true},
	"groq":       {Name: "groq", API: APIOpenAI, KeyEnv: "GROQ_API_KEY", BaseURLEnv: "GROQ_BASE_URL", BaseURL: "https://api.groq.com/openai/v1"},
	"gemini":     {Name: "gemini", API: APIOpenAI, KeyEnv: "GEMINI_API_KEY", BaseURLEnv: "GEMINI_BASE_URL", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", LegacyMaxTokens: true},
	"ollama":     {Name: "ollama", API: APIOpenAI, KeyEnv: "OLLAMA_API_KEY", KeyOptional: true, BaseURLEnv: "OLLAMA_BASE_URL", BaseURL: "http://localhost:11434/v1", LegacyMaxTokens: true},
	"vllm":       {Name: "vllm", API: APIOpenAI, KeyEnv: "VLLM_API_KEY", KeyOptional: true, BaseURLEnv: "VLLM_BASE_URL", BaseURL: "http://localhost:8000/v1", LegacyMaxTokens: true},
	"llamacpp":   {Name: "llamacpp", API: APIOpenAI, KeyEnv: "LLAMACPP_API_KEY", KeyOptional: true, BaseURLEnv: "LLAMACPP_BASE_URL", BaseURL: "http://localhost:8080/v1", LegacyMaxTokens: true},
}

// Names returns the built-in provider names, sorted.
func Names() []string {
	names := make([]string, 0, len(Builtin))
	for n := range Builtin {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
