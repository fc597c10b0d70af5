package openai

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// ResponsesModel streams responses from OpenAI's Responses API (POST
// {base}/responses). Requests are stateless (store: false): the whole
// conversation is sent each time, and the reasoning of earlier turns goes
// back as reasoning items with the encrypted content the API returned
// (include: reasoning.encrypted_content), so a reasoning model keeps its
// reasoning across tool calls without OpenAI storing anything.
type ResponsesModel struct {
	cfg     Config
	url     string
	account string // see accountOf
	redact  *llm.Redactor
	cache   llm.EncodeCache[[]byte]
	tools   llm.ToolsCache // the tools array, encoded once a run
}

var _ llm.Model = (*ResponsesModel)(nil)

// NewResponses returns a Responses API model for cfg (LegacyMaxTokens is
// not used). It reads no environment variables.
func NewResponses(cfg Config) *ResponsesModel {
	if cfg.Provider == "" {
		cfg.Provider = "openai"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	redact := cfg.Redactor.With(cfg.APIKey).With(llm.URLSecrets(cfg.BaseURL)...)
	url := strings.TrimRight(cfg.BaseURL, "/") + "/responses"
	return &ResponsesModel{cfg: cfg, url: url, account: accountOf(url, cfg.APIKey), redact: redact}
}

// Stream sends req and streams the response.
func (m *ResponsesModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		d := newResponsesDecoder(m.cfg, m.redact)
		g, reqCtx := llm.NewStreamGuard(ctx, m.cfg.Provider, m.cfg.IdleTimeout, m.cfg.MaxResponseBytes)
		defer g.Stop()
		resp, err := m.send(reqCtx, req)
		if err != nil {
			d.fail(yield, g.Err(err))
			return
		}
		defer resp.Body.Close()
		sse := llm.NewSSEReader(g.Body(resp.Body))
		var ev responsesEvent
		for sse.Next() {
			if err := ctx.Err(); err != nil {
				d.fail(yield, err)
				return
			}
			data := sse.Data()
			if len(bytes.TrimSpace(data)) == 0 || bytes.HasPrefix(data, []byte("[DONE]")) {
				continue
			}
			g.Hold()
			ev = responsesEvent{}
			if err := json.Unmarshal(data, &ev); err != nil {
				d.fail(yield, classify(ctx, m.cfg.Provider, err))
				return
			}
			if !d.handle(&ev, data, yield) {
				return
			}
			if d.finished {
				break
			}
			g.Alive()
		}
		if err := sse.Err(); err != nil && !d.finished {
			d.fail(yield, g.Err(classify(ctx, m.cfg.Provider, err)))
			return
		}
		d.finish(ctx, yield)
	}
}

// send posts req and returns the response of a 2xx status. When OpenAI
// refuses the reasoning summaries the request asks for (HTTP 400
// unsupported_value on reasoning.summary: the organisation is not
// verified), it says so once and sends the request again without them,
// as it sends every later request of that account in this process.
func (m *ResponsesModel) send(ctx context.Context, req llm.Request) (*http.Response, error) {
	summary := m.cfg.ReasoningSummary != SummaryOff && !summaryRefused(m.account)
	body, err := m.body(req, summary)
	if err != nil {
		return nil, err
	}
	resp, err := post(ctx, &m.cfg, m.url, body)
	if err == nil || !summary || !errors.Is(err, errSummaryRefused) {
		return resp, err
	}
	if refuseSummary(m.account) && m.cfg.Warn != nil {
		m.cfg.Warn(m.cfg.Provider + ": the organisation may not receive reasoning summaries (HTTP 400 unsupported_value on reasoning.summary); " +
			"Bonsai goes on without them. Verify the organisation in the provider's settings to get them, " +
			"or set agent.reasoningSummary to off to stop asking")
	}
	if body, err = m.body(req, false); err != nil {
		return nil, err
	}
	return post(ctx, &m.cfg, m.url, body)
}

// accountOf identifies the organisation that requests to url with key
// bill: the endpoint and a digest of the key.
func accountOf(url, key string) string {
	sum := sha256.Sum256([]byte(key))
	return url + " " + hex.EncodeToString(sum[:8])
}
