package anthropic

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// DefaultBaseURL is Anthropic's API root.
const DefaultBaseURL = "https://api.anthropic.com"

// apiVersion is the anthropic-version header, the one anthropic-sdk-go
// v2.15.0 sends.
const apiVersion = "2026-10-21"

// Config configures a Model.
type Config struct {
	// Model is the API model name, e.g. "claude-sonnet-4-5".
	Model string
	// APIKey is the API key, sent in AuthHeader.
	APIKey string
	// AuthHeader is the header the key goes in (see llm.SetAuth): ""
	// means X-Api-Key, as the official SDK sends it, for api.anthropic.com
	// and compatible endpoints alike.
	AuthHeader string
	// BaseURL defaults to DefaultBaseURL.
	BaseURL string
	// Info gives the default output limit and the prices for cost.
	Info llm.Info
	// HTTPClient defaults to a client without timeout (streams are long;
	// the context bounds them).
	HTTPClient *http.Client
	// Redactor hides the process's secrets in the errors the model
	// returns; the key and the base URL's password are always hidden.
	Redactor *llm.Redactor
	// IdleTimeout ends a stream that sends no event (keep-alives aside)
	// for this long; 0 means llm.DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxResponseBytes caps one response's size; 0 means
	// llm.DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Provider names the provider in assistant messages; default "anthropic".
	Provider string
}

// Model streams responses from the Messages API.
type Model struct {
	cfg    Config
	url    string
	redact *llm.Redactor
	cache  llm.EncodeCache[[]byte] // each message's encoded blocks
	tools  llm.ToolsCache          // the tools array, encoded once a run
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
	if cfg.AuthHeader == "" {
		cfg.AuthHeader = llm.AuthXAPIKey
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	redact := cfg.Redactor.With(cfg.APIKey).With(llm.URLSecrets(cfg.BaseURL)...)
	return &Model{cfg: cfg, url: strings.TrimRight(cfg.BaseURL, "/") + "/v1/messages", redact: redact}
}

// Stream sends req and streams the response.
func (m *Model) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		d := newDecoder(m.cfg, m.redact)
		g, reqCtx := llm.NewStreamGuard(ctx, m.cfg.Provider, m.cfg.IdleTimeout, m.cfg.MaxResponseBytes)
		defer g.Stop()
		resp, err := m.send(reqCtx, req)
		if err != nil {
			d.fail(yield, g.Err(err))
			return
		}
		defer resp.Body.Close()
		sse := llm.NewSSEReader(g.Body(resp.Body))
		var ev streamEvent
		for sse.Next() {
			// Buffered events must not outrun a cancellation.
			if err := ctx.Err(); err != nil {
				d.fail(yield, err)
				return
			}
			switch name := string(sse.Event()); name {
			case "", "ping":
				// Keep-alives do not hold the stream open: the idle clock runs on.
				continue
			case "error":
				d.fail(yield, streamError(m.cfg.Provider, sse.Data()))
				return
			}
			if len(bytes.TrimSpace(sse.Data())) == 0 {
				continue
			}
			g.Hold()
			ev = streamEvent{}
			if err := ev.decode(sse.Data()); err != nil {
				d.fail(yield, classify(ctx, m.cfg.Provider, err))
				return
			}
			if !d.handle(&ev, yield) {
				return
			}
			g.Alive()
		}
		if err := sse.Err(); err != nil {
			d.fail(yield, g.Err(classify(ctx, m.cfg.Provider, err)))
			return
		}
		d.finish(ctx, yield)
	}
}

// send posts the request and returns the response of a 2xx status; any
// other status is an [*llm.Error] made from the provider's error body.
func (m *Model) send(ctx context.Context, req llm.Request) (*http.Response, error) {
	body, beta, err := m.body(req)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, nil)
	if err != nil {
		return nil, &llm.Error{Kind: llm.KindInvalidRequest, Provider: m.cfg.Provider, Message: err.Error(), Err: err}
	}
	hreq.Body, hreq.ContentLength = body.Reader(), int64(body.Len())
	hreq.GetBody = func() (io.ReadCloser, error) { return body.Reader(), nil }
	h := hreq.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("Anthropic-Version", apiVersion)
	h.Set("User-Agent", "bonsai")
	llm.SetAuth(h, m.cfg.AuthHeader, m.cfg.APIKey)
	if beta != "" {
		h.Set("Anthropic-Beta", beta)
	}
	resp, err := m.cfg.HTTPClient.Do(hreq)
	if err != nil {
		return nil, classify(ctx, m.cfg.Provider, err)
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, statusError(ctx, m.cfg.Provider, resp, m.url)
	}
	return resp, nil
}
