package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// errTruncated reports a stream that ended without message_stop.
var errTruncated = errors.New("stream ended before message_stop")

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// errorBody is the API's error object, in error responses and error events.
type errorBody struct {
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// classify turns a transport or decoding error into an [*llm.Error].
func classify(ctx context.Context, provider string, err error) error {
	return llm.TransportError(ctx, provider, "stream event", err)
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
	msg := body.Error.Message
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
	if t := body.Error.Type; t == "overloaded_error" || t == "rate_limit_error" {
		out.Kind = kindForType(t, msg, resp.StatusCode)
	}
	if isQuota(body.Error.Type, msg) {
		out.Kind, out.Err = llm.KindAuth, llm.ErrQuota
	}
	return out
}

// isQuota reports whether an error says the account has no credit left:
// a billing_error, or the HTTP 400 invalid_request_error Anthropic sends
// when the credit balance is too low. Waiting does not fix either.
func isQuota(typ, message string) bool {
	return typ == "billing_error" || strings.Contains(strings.ToLower(message), "credit balance is too low")
}

// streamError classifies an error event inside a 200 stream.
func streamError(provider string, data []byte) error {
	var body errorBody
	if json.Unmarshal(data, &body) != nil || body.Error.Type == "" {
		return &llm.Error{Kind: llm.KindOverloaded, Provider: provider, Message: "error event: " + string(data)}
	}
	msg := body.Error.Message
	if msg == "" {
		msg = body.Error.Type
	}
	if isQuota(body.Error.Type, msg) {
		return &llm.Error{Kind: llm.KindAuth, Provider: provider, Message: msg, Err: llm.ErrQuota}
	}
	return &llm.Error{Kind: kindForType(body.Error.Type, msg, 0), Provider: provider, Message: msg}
}

// kindForType classifies Anthropic's error.type.
func kindForType(t, message string, status int) llm.ErrorKind {
	if llm.IsOverflowMessage(message) {
		return llm.KindContextOverflow
	}
	switch t {
	case "overloaded_error", "api_error", "timeout_error":
		return llm.KindOverloaded
	case "rate_limit_error":
		return llm.KindRateLimit
	case "authentication_error", "permission_error", "billing_error":
		return llm.KindAuth
	case "invalid_request_error", "not_found_error", "request_too_large":
		return llm.KindInvalidRequest
	}
	if status != 0 {
		return llm.KindForStatus(status, message)
	}
	return llm.KindOverloaded
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

func isAbort(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// notFoundHint names the URL a 404 answered, and the likely fix when the
// base URL ends in /v1: the adapter appends /v1/messages itself.
func notFoundHint(url string) string {
	h := " (POST " + llm.HidePassword(url) + ")"
	if strings.HasSuffix(url, "/v1/v1/messages") {
		h += ": the base URL should not end in /v1; drop it"
	}
	return h
}
