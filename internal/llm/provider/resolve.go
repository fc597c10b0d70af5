package provider

import (
	"fmt"
	"net/http"
	"os"
	"strings"

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
	base := firstNonEmpty(opts.BaseURL, getenv(p.BaseURLEnv), p.BaseURL)
	info, warning := cat.Lookup(mid.String())

	var m llm.Model
	switch p.API {
	case APIAnthropic:
		m = anthropic.New(anthropic.Config{Model: mid.Model, APIKey: key, BaseURL: base, Info: info,
			HTTPClient: opts.HTTPClient, Provider: p.Name})
	default:
		cfg := openai.Config{Model: mid.Model, APIKey: key, BaseURL: base, Info: info,
			HTTPClient: opts.HTTPClient, Provider: p.Name, LegacyMaxTokens: p.LegacyMaxTokens}
		if p.Name == "openrouter" {
			cfg.Headers = map[string]string{"HTTP-Referer": "https://github.com/bonsai-run/bonsai", "X-Title": "Bonsai"}
		}
		m = openai.New(cfg)
	}
	return Resolved{Model: llm.WithRetry(m, opts.Retry), ID: mid, Info: info, Warning: warning, BaseURL: base}, nil
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

// locate parses id and finds its provider and key: apiKey, or else the
// provider's variable.
func locate(id, apiKey string, getenv func(string) string) (llm.ModelID, Provider, string, error) {
	mid, err := llm.ParseModelID(id)
	if err != nil {
		return mid, Provider{}, "", err
	}
	p, ok := Builtin[mid.Provider]
	if !ok {
		return mid, p, "", &llm.Error{Kind: llm.KindInvalidRequest,
			Message: fmt.Sprintf("unknown provider %q in model %s (known: %s)", mid.Provider, id, strings.Join(Names(), ", "))}
	}
	key := firstNonEmpty(apiKey, getenv(p.KeyEnv))
	if key == "" && !p.KeyOptional {
		return mid, p, "", &llm.Error{Kind: llm.KindAuth, Provider: p.Name,
			Message: "no API key: set " + p.KeyEnv}
	}
	return mid, p, key, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
