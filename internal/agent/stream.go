package agent

import (
	"context"
	"errors"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// response is one streamed assistant message.
type response struct {
	msg     llm.Message
	err     error
	started bool // message_start was emitted
}

// stream sends the request and streams the answer, emitting message_start
// on the first content event and message_update for each delta. It does
// not emit message_end or record the message: the caller decides whether
// a failure before any content is retried after a compaction.
func (a *Agent) stream(ctx context.Context) response {
	model, req := a.request()
	var (
		acc llm.Accumulator
		r   response
		end bool
	)
	for ev, err := range model.Stream(ctx, req) {
		if ev.Type == llm.EventRetry {
			a.emit(Event{Type: EventRetry, Delta: &ev})
			continue
		}
		acc.Apply(ev)
		if err != nil {
			r.err = err
			end = true
			break
		}
		if ev.Type == llm.EventDone {
			end = true
			break
		}
		if !r.started {
			a.startMessage(&r)
		}
		a.emit(Event{Type: EventMessageUpdate, Delta: &ev})
	}
	r.msg = acc.Message()
	r.msg.Role = llm.RoleAssistant
	if !end && r.err == nil {
		r.err = ctx.Err()
		if r.err == nil {
			r.err = &llm.Error{Kind: llm.KindTransport, Message: "the stream ended without a final message"}
		}
	}
	if r.err != nil {
		r.msg.StopReason = llm.StopError
		if ctx.Err() != nil || errors.Is(r.err, context.Canceled) {
			r.msg.StopReason = llm.StopAborted
		}
		if r.msg.ErrorMessage == "" {
			r.msg.ErrorMessage = r.err.Error()
		}
	}
	if r.msg.StopReason == "" {
		r.msg.StopReason = llm.StopEnd
	}
	return r
}

func (a *Agent) startMessage(r *response) {
	r.started = true
	a.emit(Event{Type: EventMessageStart, Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{}}})
}

// finish emits message_start (if the stream failed before any content)
// and message_end, and records the message.
func (a *Agent) finish(r *response) error {
	if !r.started {
		a.startMessage(r)
	}
	if err := a.record(r.msg, nil); err != nil {
		return err
	}
	msg := r.msg
	a.emit(Event{Type: EventMessageEnd, Message: &msg})
	return nil
}
