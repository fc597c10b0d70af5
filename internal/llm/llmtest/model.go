package llmtest

import (
	"context"
	"iter"
	"sync"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Turn is one scripted model response.
type Turn struct {
	// Message is the final assistant message. When Events is empty the
	// events are derived from it with [Events].
	Message llm.Message
	// Events, when set, are played as given; the final message is Message
	// if it has content, otherwise the message the events build.
	Events []llm.Event
	// Err, when set, ends the stream after Events with an EventError
	// carrying the partial message and this error.
	Err error
	// Wait, when set, is received from before the terminal event, so a test
	// can hold a stream open (for example to abort it).
	Wait <-chan struct{}
}

// Model is a scripted in-process [llm.Model]. Each Stream call plays the
// next turn and records its request. It is safe for concurrent use.
type Model struct {
	mu       sync.Mutex
	turns    []Turn
	requests []llm.Request
}

var _ llm.Model = (*Model)(nil)

// NewModel returns a Model that plays turns in order.
func NewModel(turns ...Turn) *Model { return &Model{turns: turns} }

// Push appends turns to the script.
func (m *Model) Push(turns ...Turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns = append(m.turns, turns...)
}

// Requests returns copies of the requests received so far.
func (m *Model) Requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.Request(nil), m.requests...)
}

// Remaining returns the number of turns not yet played.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.turns)
}

// Stream plays the next turn. With no turn left it fails with an
// invalid_request error that says so.
func (m *Model) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		m.mu.Lock()
		req.Messages = append([]llm.Message(nil), req.Messages...)
		m.requests = append(m.requests, req)
		if len(m.turns) == 0 {
			m.mu.Unlock()
			msg := &llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: "llmtest: no scripted turn left"}
			yield(llm.Event{Type: llm.EventError, Message: msg},
				&llm.Error{Kind: llm.KindInvalidRequest, Provider: "llmtest", Message: "no scripted turn left"})
			return
		}
		turn := m.turns[0]
		m.turns = m.turns[1:]
		m.mu.Unlock()
		play(ctx, turn, yield)
	}
}

func play(ctx context.Context, turn Turn, yield func(llm.Event, error) bool) {
	events := turn.Events
	if len(events) == 0 {
		events = Events(turn.Message, 0)
	}
	var acc llm.Accumulator
	for _, ev := range events {
		if ev.Type == llm.EventDone || ev.Type == llm.EventError {
			continue
		}
		if err := ctx.Err(); err != nil {
			abort(acc, err, yield)
			return
		}
		acc.Apply(ev)
		if !yield(ev, nil) {
			return
		}
	}
	if turn.Wait != nil {
		select {
		case <-turn.Wait:
		case <-ctx.Done():
		}
	}
	if err := ctx.Err(); err != nil {
		abort(acc, err, yield)
		return
	}
	final := acc.Message()
	if len(turn.Message.Content) > 0 || turn.Message.StopReason != "" {
		final = turn.Message
	}
	final.Role = llm.RoleAssistant
	if turn.Err != nil {
		final.StopReason = llm.StopError
		final.ErrorMessage = turn.Err.Error()
		yield(llm.Event{Type: llm.EventError, Message: &final}, turn.Err)
		return
	}
	if final.StopReason == "" {
		final.StopReason = llm.StopEnd
		if len(final.ToolCalls()) > 0 {
			final.StopReason = llm.StopToolUse
		}
	}
	yield(llm.Event{Type: llm.EventDone, Message: &final}, nil)
}

func abort(acc llm.Accumulator, err error, yield func(llm.Event, error) bool) {
	m := acc.Message()
	m.StopReason = llm.StopAborted
	m.ErrorMessage = err.Error()
	yield(llm.Event{Type: llm.EventError, Message: &m}, err)
}
