package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// errTruncated reports a stream that ended without message_stop.
var errTruncated = errors.New("stream ended before message_stop")

// streamErrorPrefix starts the SDK's error for an SSE error event it could
// not turn into an API error.
const streamErrorPrefix = "received error while streaming: "

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
	if msg, ok := strings.CutPrefix(err.Error(), streamErrorPrefix); ok {
		var body struct {
			Error struct{ Type, Message string } `json:"error"`
		}
		if json.Unmarshal([]byte(msg), &body) == nil && body.Error.Type != "" {
			return &llm.Error{Kind: kindForType(body.Error.Type, body.Error.Message, 0),
				Provider: provider, Message: body.Error.Message, Err: err}
		}
	}
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		return &llm.Error{Kind: llm.KindTransport, Provider: provider, Message: "malformed stream event: " + err.Error(), Err: err}
	}
	return &llm.Error{Kind: llm.KindTransport, Provider: provider, Message: err.Error(), Err: err}
}

func fromAPIError(provider string, e *sdk.Error) *llm.Error {
	msg := e.Message
	if msg == "" {
		msg = e.RawJSON()
	}
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	out := &llm.Error{Provider: provider, Status: e.StatusCode, Message: msg, Err: e}
	if e.StatusCode >= 400 {
		out.Kind = llm.KindForStatus(e.StatusCode, msg)
		if t := string(e.Type()); t == "overloaded_error" || t == "rate_limit_error" {
			out.Kind = kindForType(t, msg, e.StatusCode)
		}
	} else {
		// An error event inside a 200 stream.
		out.Kind = kindForType(string(e.Type()), msg, 0)
		out.Status = 0
	}
	if e.Response != nil {
		out.RetryAfter = retryAfter(e.Response.Header)
	}
	return out
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
