package anthropic

import (
	"context"
	"iter"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// DefaultBaseURL is Anthropic's API root.
const DefaultBaseURL = "https://api.anthropic.com"

// Config configures a Model.
type Config struct {
	// Model is the API model name, e.g. "claude-sonnet-4-5".
	Model string
	// APIKey is the API key; the SDK sends it as a bearer token.
	APIKey string
	// BaseURL defaults to DefaultBaseURL.
	BaseURL string
	// Info gives the default output limit and the prices for cost.
	Info llm.Info
	// HTTPClient defaults to a client without timeout (streams are long;
	// the context bounds them).
	HTTPClient *http.Client
	// Provider names the provider in assistant messages; default "anthropic".
	Provider string
}

// Model streams responses from the Messages API.
type Model struct {
	cfg    Config
	client sdk.Client
	cache  llm.EncodeCache[[]byte] // each message's encoded blocks
}

var _ llm.Model = (*Model)(nil)

// New returns a Model for cfg. It reads no environment variables.
func New(cfg Config) *Model {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Provider == "" {
		cfg.Provider = "anthropic"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	client := sdk.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithoutOpenTelemetry(),
		option.WithAPIKey(cfg.APIKey),
		option.WithBaseURL(strings.TrimRight(cfg.BaseURL, "/")+"/"),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	)
	return &Model{cfg: cfg, client: client}
}

// Stream sends req and streams the response.
func (m *Model) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		d := newDecoder(m.cfg)
		body, opts, err := m.body(req)
		if err != nil {
			d.fail(yield, err)
			return
		}
		// The SDK sends the body, authenticates, and turns error statuses
		// into *sdk.Error; its SSE decoder reads the events.
		var raw *http.Response
		opts = append(opts, option.WithRequestBody("application/json", body))
		err = m.client.Post(ctx, "v1/messages", nil, &raw, opts...)
		stream := ssestream.NewStream[sdk.MessageStreamEventUnion](ssestream.NewDecoder(raw), err)
		defer stream.Close()
		for stream.Next() {
			// Buffered events must not outrun a cancellation.
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
