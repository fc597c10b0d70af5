package openai

import (
	"context"
	"iter"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Config configures a Model.
type Config struct {
	// Model is the model name the server knows, e.g. "gpt-5" or "qwen3:8b".
	Model string
	// APIKey is sent as a bearer token; empty sends no authorization header
	// (Ollama, local vLLM).
	APIKey string
	// BaseURL is the API root that /chat/completions is appended to, e.g.
	// "https://api.openai.com/v1". Required.
	BaseURL string
	// Info gives the output limit, reasoning support and prices.
	Info llm.Info
	// HTTPClient defaults to a client without timeout (the context bounds
	// requests).
	HTTPClient *http.Client
	// Provider names the provider in assistant messages and errors; default
	// "openai".
	Provider string
	// LegacyMaxTokens sends max_tokens instead of max_completion_tokens, for
	// servers that only know the older field.
	LegacyMaxTokens bool
	// Headers are added to every request (OpenRouter's attribution headers).
	Headers map[string]string
}

// Model streams responses from a Chat Completions endpoint.
type Model struct {
	cfg    Config
	client sdk.Client
	cache  llm.EncodeCache[encodedMessage]
}

var _ llm.Model = (*Model)(nil)

// New returns a Model for cfg. It reads no environment variables: the
// service is built without the SDK's client defaults, which would pick up
// OPENAI_* variables meant for another provider.
func New(cfg Config) *Model {
	if cfg.Provider == "" {
		cfg.Provider = "openai"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithBaseURL(strings.TrimRight(cfg.BaseURL, "/") + "/"),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return &Model{cfg: cfg, client: sdk.Client{Options: opts}}
}

// Stream sends req and streams the response.
func (m *Model) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		d := newDecoder(m.cfg)
		body, err := m.body(req)
		if err != nil {
			d.fail(yield, err)
			return
		}
		// The SDK sends the body, authenticates, and turns error statuses
		// into *sdk.Error; its SSE decoder reads the chunks.
		var raw *http.Response
		err = m.client.Post(ctx, "chat/completions", nil, &raw, option.WithRequestBody("application/json", body))
		stream := ssestream.NewStream[sdk.ChatCompletionChunk](ssestream.NewDecoder(raw), err)
		defer stream.Close()
		for stream.Next() {
			// Buffered chunks must not outrun a cancellation.
			if err := ctx.Err(); err != nil {
				d.fail(yield, err)
				return
			}
			if !d.handle(stream.Current(), yield) {
				return
			}
		}
		if err := stream.Err(); err != nil {
			d.fail(yield, classify(ctx, m.cfg.Provider, err))
			return
		}
		d.finish(ctx, yield)
	}
}
