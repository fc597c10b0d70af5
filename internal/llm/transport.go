package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// TransportError turns an error of sending a request or reading its stream
// into an [*Error] of kind transport; context errors are returned as they
// are. what names the unit of the stream in a decoding error ("stream
// event", "stream chunk").
func TransportError(ctx context.Context, provider, what string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		return &Error{Kind: KindTransport, Provider: provider, Message: "malformed " + what + ": " + err.Error(), Err: err}
	}
	return &Error{Kind: KindTransport, Provider: provider, Message: err.Error(), Err: err}
}

// HideKey removes the API key from an [*Error]'s message: a proxy or an
// OpenAI-compatible server may echo the request's headers in its error
// body, and the message ends up in logs, on tickets and before the agent.
// Keys shorter than 8 bytes are left alone: replacing them would mangle
// ordinary words.
func HideKey(err error, key string) error {
	if e, ok := errors.AsType[*Error](err); ok && len(key) >= 8 {
		e.Message = strings.ReplaceAll(e.Message, key, "[redacted]")
	}
	return err
}
