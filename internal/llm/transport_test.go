package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

func TestTransportError(t *testing.T) {
	ctx := context.Background()
	var syntax error = &json.SyntaxError{}
	if e, ok := errors.AsType[*Error](TransportError(ctx, "p", "stream chunk", syntax)); !ok || e.Kind != KindTransport || e.Message[:22] != "malformed stream chunk" {
		t.Fatalf("syntax error: %#v", e)
	}
	if e, ok := errors.AsType[*Error](TransportError(ctx, "p", "x", io.ErrUnexpectedEOF)); !ok || e.Kind != KindTransport {
		t.Fatalf("EOF: %#v", e)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := TransportError(cctx, "p", "x", io.ErrUnexpectedEOF); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}
