package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"

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
	// Redactor hides the process's secrets in the errors the model
	// returns; the key and the base URL's password are always hidden.
	Redactor *llm.Redactor
	// IdleTimeout ends a stream that sends no event (keep-alives aside)
	// for this long; 0 means llm.DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxResponseBytes caps one response's size; 0 means
	// llm.DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Provider names the provider in assistant messages and errors; default
	// "openai".
	Provider string
	// LegacyMaxTokens sends max_tokens instead of max_completion_tokens, for
	// servers that only know the older field.
	LegacyMaxTokens bool
	// Headers are added to every request (OpenRouter's attribution headers).
	Headers map[string]string
	// AuthHeader is the header the key goes in (see llm.SetAuth); ""
	// means "Authorization: Bearer".
	AuthHeader string
	// ReasoningField, when set, is the field ("reasoning_content" or
	// "reasoning") in which assistant messages with tool calls carry their
	// reasoning back (Chat Completions only; see llm.ProviderInfo).
	ReasoningField string
	// ReasoningSummary is what the Responses API is asked for in
	// reasoning.summary: "" or "auto" asks for summaries, "off" sends
	// none (OpenAI gives them only to verified organisations).
	ReasoningSummary string
	// Warn, when set, receives the adapter's notices (a stream whose
	// finished item contradicts its deltas; reasoning summaries the
	// organisation may not have). It may be called from any goroutine
	// that ranges over a stream; nil drops them.
	Warn func(msg string)
}

// Model streams responses from a Chat Completions endpoint.
type Model struct {
	cfg    Config
	url    string
	redact *llm.Redactor
	cache  llm.EncodeCache[encodedMessage]
	tools  llm.ToolsCache // the tools array, encoded once a run
}

var _ llm.Model = (*Model)(nil)

// New returns a Model for cfg. It reads no environment variables.
func New(cfg Config) *Model {
	if cfg.Provider == "" {
		cfg.Provider = "openai"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	redact := cfg.Redactor.With(cfg.APIKey).With(llm.URLSecrets(cfg.BaseURL)...)
	return &Model{cfg: cfg, url: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions", redact: redact}
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
		// Keep-alive comments never reach this loop: the idle clock runs on.
		sse := llm.NewSSEReader(g.Body(resp.Body))
		var c chunk
		for sse.Next() {
			// Buffered chunks must not outrun a cancellation.
			if err := ctx.Err(); err != nil {
				d.fail(yield, err)
				return
			}
			data := sse.Data()
			if bytes.HasPrefix(data, []byte("[DONE]")) {
				break
			}
			if len(bytes.TrimSpace(data)) == 0 {
				continue
			}
			g.Hold()
			c = chunk{}
			if err := json.Unmarshal(data, &c); err != nil {
				d.fail(yield, classify(ctx, m.cfg.Provider, err))
				return
			}
			if len(c.Error) > 0 && string(c.Error) != "null" {
				body := errorBody{Error: &apiError{}}
				_ = json.Unmarshal(data, &body) // an error that is not an object keeps its text below
				if body.Error == nil {
					body.Error = &apiError{}
				}
				d.fail(yield, streamError(m.cfg.Provider, &body, data))
				return
			}
			if !d.handle(&c, yield) {
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
// other status is an [*llm.Error] made from the server's error body.
func (m *Model) send(ctx context.Context, req llm.Request) (*http.Response, error) {
	body, err := m.body(req)
	if err != nil {
		return nil, err
	}
	return post(ctx, &m.cfg, m.url, body)
}

// post sends body to url with cfg's key and headers and returns the
// response of a 2xx status; any other status is an [*llm.Error] made from
// the server's error body.
func post(ctx context.Context, cfg *Config, url string, body *llm.Body) (*http.Response, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return nil, &llm.Error{Kind: llm.KindInvalidRequest, Provider: cfg.Provider, Message: err.Error(), Err: err}
	}
	hreq.Body, hreq.ContentLength = body.Reader(), int64(body.Len())
	hreq.GetBody = func() (io.ReadCloser, error) { return body.Reader(), nil }
	h := hreq.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "bonsai")
	llm.SetAuth(h, cfg.AuthHeader, cfg.APIKey)
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	resp, err := cfg.HTTPClient.Do(hreq)
	if err != nil {
		return nil, classify(ctx, cfg.Provider, err)
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, statusError(ctx, cfg.Provider, resp, url)
	}
	return resp, nil
}
