package llm

import (
	"net/http"
	"sort"
	"strings"
)

// WireFormat names the HTTP API a provider speaks; each has one adapter.
type WireFormat string

// The wire formats Bonsai speaks.
const (
	WireAnthropicMessages WireFormat = "anthropic-messages" // llm/anthropic
	WireOpenAIChat        WireFormat = "openai-chat"        // llm/openai
	WireOpenAIResponses   WireFormat = "openai-responses"   // llm/openai (ResponsesModel)
)

// ProviderInfo describes a provider Bonsai knows by name: the first part
// of a "provider/model" id. It is data only; llm/provider builds the
// adapter from it, and the CLI and the web UI read its variables.
type ProviderInfo struct {
	// Name is the id prefix, such as "anthropic".
	Name string
	// Wire is the API the provider speaks.
	Wire WireFormat
	// ReasoningWire, when set, is the API used instead of Wire for the
	// models the catalog marks as thinking: OpenAI's reasoning models keep
	// their reasoning across tool calls only on the Responses API.
	ReasoningWire WireFormat
	// KeyEnv names the environment variable holding the API key.
	KeyEnv string
	// KeyOptional is true for local servers that need no key.
	KeyOptional bool
	// BaseURLEnv names the environment variable overriding DefaultBaseURL.
	BaseURLEnv string
	// DefaultBaseURL is the API root used when BaseURLEnv is unset.
	DefaultBaseURL string
	// LegacyMaxTokens sends max_tokens rather than max_completion_tokens
	// (Chat Completions servers that predate the newer field).
	LegacyMaxTokens bool
	// Headers are added to every request.
	Headers map[string]string
	// ReasoningField names the Chat Completions field in which an
	// assistant message with tool calls carries its reasoning back to the
	// provider: "reasoning_content" (DeepSeek, Kimi, GLM: DeepSeek refuses
	// a thinking-mode request without it) or "reasoning" (OpenRouter).
	// Empty: reasoning is never sent back.
	ReasoningField string
	// AuthHeader is the header the key goes in: "" for "Authorization:
	// Bearer <key>", AuthXAPIKey for "X-Api-Key: <key>" (Anthropic's, and
	// what its official SDK sends; third-party Messages API endpoints and
	// proxies read only that).
	AuthHeader string
}

// AuthXAPIKey is the X-Api-Key header of [ProviderInfo.AuthHeader].
const AuthXAPIKey = "X-Api-Key"

// SetAuth sets the key in h in the header named header ("" means
// "Authorization: Bearer <key>"); an empty key sets nothing.
func SetAuth(h http.Header, header, key string) {
	switch {
	case key == "":
	case header == "" || strings.EqualFold(header, "Authorization"):
		h.Set("Authorization", "Bearer "+key)
	default:
		h.Set(header, key)
	}
}

// Providers returns the providers Bonsai knows, in the order the docs and
// the web settings page list them. Each call returns a fresh copy.
func Providers() []ProviderInfo {
	return []ProviderInfo{
		{Name: "anthropic", Wire: WireAnthropicMessages, KeyEnv: "ANTHROPIC_API_KEY", AuthHeader: AuthXAPIKey,
			BaseURLEnv: "ANTHROPIC_BASE_URL", DefaultBaseURL: "https://api.anthropic.com"},
		{Name: "openai", Wire: WireOpenAIChat, ReasoningWire: WireOpenAIResponses, KeyEnv: "OPENAI_API_KEY",
			BaseURLEnv: "OPENAI_BASE_URL", DefaultBaseURL: "https://api.openai.com/v1"},
		{Name: "openrouter", Wire: WireOpenAIChat, KeyEnv: "OPENROUTER_API_KEY",
			BaseURLEnv: "OPENROUTER_BASE_URL", DefaultBaseURL: "https://openrouter.ai/api/v1", LegacyMaxTokens: true,
			Headers:        map[string]string{"HTTP-Referer": "https://github.com/bonsai-run/bonsai", "X-Title": "Bonsai"},
			ReasoningField: "reasoning"},
		{Name: "deepseek", Wire: WireOpenAIChat, KeyEnv: "DEEPSEEK_API_KEY",
			BaseURLEnv: "DEEPSEEK_BASE_URL", DefaultBaseURL: "https://api.deepseek.com/v1", LegacyMaxTokens: true,
			ReasoningField: "reasoning_content"},
		{Name: "moonshot", Wire: WireOpenAIChat, KeyEnv: "MOONSHOT_API_KEY",
			BaseURLEnv: "MOONSHOT_BASE_URL", DefaultBaseURL: "https://api.moonshot.ai/v1", LegacyMaxTokens: true,
			ReasoningField: "reasoning_content"},
		{Name: "zhipu", Wire: WireOpenAIChat, KeyEnv: "ZHIPU_API_KEY",
			BaseURLEnv: "ZHIPU_BASE_URL", DefaultBaseURL: "https://api.z.ai/api/paas/v4", LegacyMaxTokens: true,
			ReasoningField: "reasoning_content"},
		{Name: "groq", Wire: WireOpenAIChat, KeyEnv: "GROQ_API_KEY",
			BaseURLEnv: "GROQ_BASE_URL", DefaultBaseURL: "https://api.groq.com/openai/v1"},
		{Name: "gemini", Wire: WireOpenAIChat, KeyEnv: "GEMINI_API_KEY",
			BaseURLEnv: "GEMINI_BASE_URL", DefaultBaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", LegacyMaxTokens: true},
		{Name: "ollama", Wire: WireOpenAIChat, KeyEnv: "OLLAMA_API_KEY", KeyOptional: true,
			BaseURLEnv: "OLLAMA_BASE_URL", DefaultBaseURL: "http://localhost:11434/v1", LegacyMaxTokens: true},
		{Name: "vllm", Wire: WireOpenAIChat, KeyEnv: "VLLM_API_KEY", KeyOptional: true,
			BaseURLEnv: "VLLM_BASE_URL", DefaultBaseURL: "http://localhost:8000/v1", LegacyMaxTokens: true},
		{Name: "llamacpp", Wire: WireOpenAIChat, KeyEnv: "LLAMACPP_API_KEY", KeyOptional: true,
			BaseURLEnv: "LLAMACPP_BASE_URL", DefaultBaseURL: "http://localhost:8080/v1", LegacyMaxTokens: true},
	}
}

// LookupProvider returns the provider named name (lower case, as
// [ParseModelID] gives it).
func LookupProvider(name string) (ProviderInfo, bool) {
	for _, p := range Providers() {
		if p.Name == name {
			return p, true
		}
	}
	return ProviderInfo{}, false
}

// ProviderNames returns the names of [Providers], sorted.
func ProviderNames() []string {
	ps := Providers()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	sort.Strings(names)
	return names
}
