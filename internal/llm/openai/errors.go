package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// classify turns an SDK or transport error into an [*llm.Error]; context
// errors are returned as they are.
func classify(ctx context.Context, provider string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if apiErr, ok := errors.AsType[*sdk.Error](err); ok {
		return fromAPIError(provider, apiErr)
	}
	if se, ok := errors.AsType[*ssestream.StreamError](err); ok {
		return fromStreamError(provider, se)
	}
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		return &llm.Error{Kind: llm.KindTransport, Provider: provider, Message: "malformed stream chunk: " + err.Error(), Err: err}
	}
	return &llm.Error{Kind: llm.KindTransport, Provider: provider, Message: err.Error(), Err: err}
}

func fromAPIError(provider string, e *sdk.Error) *llm.Error {
	msg := e.Message
	if msg == "" {
		msg = strings.TrimSpace(e.RawJSON())
	}
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	out := &llm.Error{Provider: provider, Status: e.StatusCode, Message: msg, Err: e,
		Kind: llm.KindForStatus(e.StatusCode, msg)}
	switch e.Code {
	case "context_length_exceeded", "string_above_max_length":
		out.Kind = llm.KindContextOverflow
	case "insufficient_quota":
		// A 429 that waiting does not fix.
		out.Kind = llm.KindAuth
	}
	if e.Response != nil {
		out.RetryAfter = retryAfter(e.Response.Header)
	}
	return out
}

// fromStreamError classifies an error object sent inside the stream.
func fromStreamError(provider string, e *ssestream.StreamError) *llm.Error {
	var body struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	msg := e.Message
	if json.Unmarshal(e.Event.Data, &body) == nil && body.Error.Message != "" {
		msg = body.Error.Message
	}
	code, _ := body.Error.Code.(string)
	kind := llm.KindOverloaded
	switch {
	case llm.IsOverflowMessage(msg) || code == "context_length_exceeded":
		kind = llm.KindContextOverflow
	case strings.Contains(code, "rate_limit") || strings.Contains(body.Error.Type, "rate_limit"):
		kind = llm.KindRateLimit
	case body.Error.Type == "invalid_request_error":
		kind = llm.KindInvalidRequest
	}
	return &llm.Error{Kind: kind, Provider: provider, Message: msg, Err: e}
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
