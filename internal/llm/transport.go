package llm

import (
	"context"
	"encoding/json"
	"errors"
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
