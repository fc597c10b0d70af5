package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// errorBody is the error object of error responses and of error chunks
// inside a stream. Code is a string on OpenAI, a number or null on some
// compatible servers.
type errorBody struct {
	Error *apiError `json:"error"`
}

type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
	Param   any    `json:"param"`
}

func (b *errorBody) code() string {
	s, _ := b.Error.Code.(string)
	return s
}

// classify turns a transport or decoding error into an [*llm.Error].
func classify(ctx context.Context, provider string, err error) error {
	return llm.TransportError(ctx, provider, "stream chunk", err)
}

// statusError reads an error response to a request to url into an
// [*llm.Error].
func statusError(ctx context.Context, provider string, resp *http.Response, url string) error {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err != nil {
		return classify(ctx, provider, err)
	}
	var body errorBody
	_ = json.Unmarshal(raw, &body)
	msg := ""
	if body.Error != nil {
		msg = body.Error.Message
	}
	if msg == "" {
		msg = strings.TrimSpace(string(raw))
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	if resp.StatusCode == http.StatusNotFound {
		msg += notFoundHint(url)
	}
	out := &llm.Error{Provider: provider, Status: resp.StatusCode, Message: msg,
		Kind: llm.KindForStatus(resp.StatusCode, msg), RetryAfter: retryAfter(resp.Header)}
	if body.Error != nil {
		switch body.code() {
		case "context_length_exceeded", "string_above_max_length":
			out.Kind = llm.KindContextOverflow
		case "insufficient_quota":
			// A 429 that waiting does not fix.
			out.Kind, out.Err = llm.KindAuth, llm.ErrQuota
		case "unsupported_value":
			if body.Error.Param == "reasoning.summary" {
				out.Err = errSummaryRefused
			}
		}
	}
	return out
}

// streamError classifies an error object sent inside the stream.
func streamError(provider string, body *errorBody, data []byte) *llm.Error {
	msg := body.Error.Message
	if msg == "" {
		msg = "error chunk: " + string(data)
	}
	code := body.code()
	kind := llm.KindOverloaded
	switch {
	case code == "insufficient_quota" || body.Error.Type == "insufficient_quota":
		return quotaError(provider, msg)
	case llm.IsOverflowMessage(msg) || code == "context_length_exceeded":
		kind = llm.KindContextOverflow
	case strings.Contains(code, "rate_limit") || strings.Contains(body.Error.Type, "rate_limit"):
		kind = llm.KindRateLimit
	case body.Error.Type == "invalid_request_error":
		kind = llm.KindInvalidRequest
	}
	return &llm.Error{Kind: kind, Provider: provider, Message: msg}
}

// quotaError is the error of an exhausted quota, wherever it arrives: an
// HTTP 429 or an error inside a 200 stream (a Chat Completions error
// chunk, a Responses error event or response.failed).
func quotaError(provider, msg string) *llm.Error {
	return &llm.Error{Kind: llm.KindAuth, Provider: provider, Message: msg, Err: llm.ErrQuota}
}

// retryAfter reads retry-after-ms (milliseconds) or retry-after.
func retryAfter(h http.Header) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if d := llm.ParseRetryAfter(v, time.Now()); d > 0 {
			return d / 1000
		}
	}
	return llm.ParseRetryAfter(h.Get("retry-after"), time.Now())
}

// notFoundHint names the URL a 404 answered, and the likely fix: the
// adapter appends /chat/completions (or /responses) to a base URL that,
// for most servers, ends in /v1.
func notFoundHint(raw string) string {
	h := " (POST " + llm.HidePassword(raw) + ")"
	u, err := url.Parse(raw)
	if err != nil {
		return h
	}
	for _, endpoint := range []string{"/chat/completions", "/responses"} {
		if !strings.HasSuffix(u.Path, endpoint) {
			continue
		}
		switch p := strings.TrimSuffix(u.Path, endpoint); {
		case strings.HasSuffix(p, endpoint):
			h += ": the base URL should not end in " + endpoint + "; drop it"
		case strings.Trim(p, "/") == "":
			h += ": the base URL usually ends in /v1; add it"
		}
		break
	}
	return h
}
