package llm

import (
	"context"
	"iter"
)

// Model streams one model response for a request.
//
// Ranging over the returned sequence performs the request. Every pair has
// a nil error except the last one when the stream fails; the last event is
// always [EventDone] (error nil) or [EventError] (error non-nil, an [*Error]
// or the context's error). Breaking out of the loop or cancelling ctx stops
// the request and frees its connection; no goroutine outlives the loop.
// A sequence may be ranged over once.
type Model interface {
	Stream(ctx context.Context, req Request) iter.Seq2[Event, error]
}

// Collect drains a stream and returns its final assistant message. The
// message is returned also on error (partial, with stop reason "error" or
// "aborted") so callers can keep what arrived.
func Collect(seq iter.Seq2[Event, error]) (Message, error) {
	var acc Accumulator
	for ev, err := range seq {
		acc.Apply(ev)
		if err != nil {
			return acc.Message(), err
		}
	}
	return acc.Message(), nil
}
