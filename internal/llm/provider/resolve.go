package provider

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/anthropic"
	"github.com/bonsai-run/bonsai/internal/llm/catalog"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

// Options are the inputs of Resolve besides the model id. The zero value
// reads the process environment and the embedded catalog.
type Options struct {
	// Getenv reads environment variables; nil means os.Getenv.
	Getenv func(string) string
	// Catalog gives model limits and prices; nil means catalog.Default().
	Catalog *catalog.Catalog
	// APIKey and BaseURL, when set (from config.json), win over the
	// environment.
	APIKey  string
	BaseURL string
	// HTTPClient is shared by the adapters; nil means a fresh client.
	HTTPClient *http.Client
	// Retry configures retries; the zero value means llm.DefaultRetryPolicy.
	Retry llm.RetryPolicy
	// Redactor holds the secrets of the process, hidden in every error the
	// model returns (the model's own key and base URL password always are).
	Redactor *llm.Redactor
	// IdleTimeout and MaxResponseBytes bound each streamed response; zero
	// reads BONSAI_LLM_IDLE_TIMEOUT (a duration such as "90s") and
	// BONSAI_LLM_MAX_RESPONSE_BYTES, or else uses the llm defaults.
	IdleTimeout      time.Duration
	MaxResponseBytes int64
	// ReasoningSummary is config.json's agent.reasoningSummary: "auto"
	// (or "") asks OpenAI's reasoning models for reasoning summaries,
	// "off" does not (see openai.Config.ReasoningSummary).
	ReasoningSummary string
	// Warn receives the adapters' notices (a server's stream contradicting
	// itself, reasoning summaries refused); nil drops them.
	Warn func(msg string)
}

// Resolved is a model ready to use.
type Resolved struct {
	// Model streams responses, with retries.
	Model llm.Model
	// ID is the parsed model id.
	ID llm.ModelID
	// Info is the catalog entry (or defaults) for the model.
	Info llm.Info
	// Warning is a one-line notice for an unknown model; empty otherwise.
	Warning string
	// BaseURL is the API root in use.
	BaseURL string
}

// Resolve builds the model named id ("provider/model"). A missing key is
// an auth error that names the variable to set.
func Resolve(id string, opts Options) (Resolved, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	mid, p, key, err := locate(id, opts.APIKey, getenv)
	if err != nil {
		return Resolved{}, err
	}
	cat := opts.Catalog
	if cat == nil {
		cat = catalog.Default()
	}
	base := firstNonEmpty(opts.BaseURL, getenv(p.BaseURLEnv), p.DefaultBaseURL)
	idle, max, err := limits(opts, getenv)
	if err != nil {
		return Resolved{}, err
	}
	info, warning := cat.Lookup(mid.String())
	m, err := adapter(p, mid, key, base, info, opts, idle, max)
	if err != nil {
		return Resolved{}, err
	}
	return Resolved{Model: llm.WithRetry(m, opts.Retry), ID: mid, Info: info, Warning: warning, BaseURL: base}, nil
}

// Wire returns the wire format p speaks for a model described by info:
// p's ReasoningWire for a thinking model when p has one, else p's Wire.
func Wire(p llm.ProviderInfo, info llm.Info) llm.WireFormat {
	if p.ReasoningWire != "" && info.Thinking {
		return p.ReasoningWire
	}
	return p.Wire
}

// adapter builds the adapter of p's wire format, without retries.
func adapter(p llm.ProviderInfo, mid llm.ModelID, key, base string, info llm.Info, opts Options, idle time.Duration, max int64) (llm.Model, error) {
	wire := Wire(p, info)
	switch wire {
	case llm.WireOpenAIResponses:
		return openai.NewResponses(openai.Config{Model: mid.Model, APIKey: key, AuthHeader: p.AuthHeader, BaseURL: base, Info: info,
			HTTPClient: opts.HTTPClient, Provider: p.Name, Headers: p.Headers,
			Redactor: opts.Redactor, IdleTimeout: idle, MaxResponseBytes: max,
			ReasoningSummary: opts.ReasoningSummary, Warn: opts.Warn}), nil
	case llm.WireAnthropicMessages:
		return anthropic.New(anthropic.Config{Model: mid.Model, APIKey: key, AuthHeader: p.AuthHeader, BaseURL: base, Info: info,
			HTTPClient: opts.HTTPClient, Provider: p.Name, Redactor: opts.Redactor, IdleTimeout: idle, MaxResponseBytes: max}), nil
	case llm.WireOpenAIChat:
		return openai.New(openai.Config{Model: mid.Model, APIKey: key, AuthHeader: p.AuthHeader, BaseURL: base, Info: info,
			HTTPClient: opts.HTTPClient, Provider: p.Name, LegacyMaxTokens: p.LegacyMaxTokens, Headers: p.Headers,
			ReasoningField: p.ReasoningField, Redactor: opts.Redactor, IdleTimeout: idle, MaxResponseBytes: max}), nil
	}
	return nil, &llm.Error{Kind: llm.KindInvalidRequest, Provider: p.Name,
		Message: fmt.Sprintf("no adapter speaks %q", wire)}
}

// Check reports whether the model named id could be resolved with the
// environment getenv reads: a valid id, a known provider, a key when the
// provider needs one. It makes no request and reads no catalog, so that
// `bonsai status` can check every project's model for the cost of a map
// lookup; its errors are Resolve's.
func Check(id string, getenv func(string) string) error {
	_, _, _, err := locate(id, "", getenv)
	return err
}

// locate parses id and finds its provider in [llm.Providers] and its key:
// apiKey, or else the provider's variable.
func locate(id, apiKey string, getenv func(string) string) (llm.ModelID, llm.ProviderInfo, string, error) {
	mid, err := llm.ParseModelID(id)
	if err != nil {
		return mid, llm.ProviderInfo{}, "", err
	}
	p, ok := llm.LookupProvider(mid.Provider)
	if !ok {
		return mid, p, "", &llm.Error{Kind: llm.KindInvalidRequest,
			Message: fmt.Sprintf("unknown provider %q in model %s (known: %s)", mid.Provider, id, strings.Join(llm.ProviderNames(), ", "))}
	}
	key := firstNonEmpty(apiKey, getenv(p.KeyEnv))
	if key == "" && !p.KeyOptional {
		return mid, p, "", &llm.Error{Kind: llm.KindAuth, Provider: p.Name,
			Message: "no API key: set " + p.KeyEnv + " or run 'bonsai credentials set " + p.Name + "'"}
	}
	return mid, p, key, nil
}

// The variables that bound a streamed response.
const (
	IdleTimeoutEnv      = "BONSAI_LLM_IDLE_TIMEOUT"
	MaxResponseBytesEnv = "BONSAI_LLM_MAX_RESPONSE_BYTES"
)

// limits returns the idle timeout and the response size cap: the
// options', else the environment's, else zero (the adapters' defaults).
func limits(opts Options, getenv func(string) string) (time.Duration, int64, error) {
	idle, max := opts.IdleTimeout, opts.MaxResponseBytes
	if v := getenv(IdleTimeoutEnv); idle == 0 && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return 0, 0, &llm.Error{Kind: llm.KindInvalidRequest, Message: fmt.Sprintf("%s=%q is not a positive duration such as 90s", IdleTimeoutEnv, v)}
		}
		idle = d
	}
	if v := getenv(MaxResponseBytesEnv); max == 0 && v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return 0, 0, &llm.Error{Kind: llm.KindInvalidRequest, Message: fmt.Sprintf("%s=%q is not a positive number of bytes", MaxResponseBytesEnv, v)}
		}
		max = n
	}
	return idle, max, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
