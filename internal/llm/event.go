package llm

import (
	"strings"
	"time"
)

// EventType names a stream event.
type EventType string

// The stream events. Content parts arrive as start, deltas, end; Index is
// the part's position in the final message's Content.
const (
	EventTextStart     EventType = "text_start"
	EventTextDelta     EventType = "text_delta"
	EventTextEnd       EventType = "text_end"
	EventThinkingStart EventType = "thinking_start"
	EventThinkingDelta EventType = "thinking_delta"
	EventThinkingEnd   EventType = "thinking_end"
	EventToolCallStart EventType = "toolcall_start"
	EventToolCallDelta EventType = "toolcall_delta" // Delta is a fragment of the arguments JSON
	EventToolCallEnd   EventType = "toolcall_end"
	// EventRetry says a failed attempt will be retried after Retry.Delay.
	// It only occurs before the first content event.
	EventRetry EventType = "retry"
	// EventDone ends a successful stream; Message is the final message.
	EventDone EventType = "done"
	// EventError ends a failed stream; Message is the partial message.
	EventError EventType = "error"
)

// Event is one step of a streamed response.
type Event struct {
	Type  EventType `json:"type"`
	Index int       `json:"index"`
	// Delta is the new text, thinking or argument fragment of a *_delta event.
	Delta string `json:"delta,omitempty"`
	// Part is the part so far on *_start (a tool call's id and name) and the
	// completed part on *_end (thinking signature, parsed tool arguments).
	Part *Part `json:"part,omitempty"`
	// Message is the final (done) or partial (error) assistant message.
	Message *Message `json:"message,omitempty"`
	// Retry describes the coming retry of an EventRetry.
	Retry *RetryInfo `json:"retry,omitempty"`
}

// RetryInfo describes a retry about to happen.
type RetryInfo struct {
	Attempt int           `json:"attempt"` // 1 for the first retry
	Delay   time.Duration `json:"delay"`
	Err     string        `json:"error"`
}

// Accumulator rebuilds an assistant message from stream events. The zero
// value is ready to use.
type Accumulator struct {
	msg   Message
	final bool
	// Deltas of open parts are kept in builders, so a long response costs
	// linear time, not a string copy per delta.
	text map[int]*strings.Builder
	args map[int][]byte
}

// Apply folds one event into the message.
func (a *Accumulator) Apply(ev Event) {
	switch ev.Type {
	case EventTextStart, EventThinkingStart, EventToolCallStart:
		p := Part{}
		if ev.Part != nil {
			p = *ev.Part
		}
		switch ev.Type {
		case EventTextStart:
			p.Type = PartText
		case EventThinkingStart:
			p.Type = PartThinking
		default:
			p.Type = PartToolCall
		}
		a.set(ev.Index, p)
	case EventTextDelta:
		a.at(ev.Index, PartText)
		a.builder(ev.Index).WriteString(ev.Delta)
	case EventThinkingDelta:
		a.at(ev.Index, PartThinking)
		a.builder(ev.Index).WriteString(ev.Delta)
	case EventToolCallDelta:
		a.at(ev.Index, PartToolCall)
		if a.args == nil {
			a.args = make(map[int][]byte)
		}
		a.args[ev.Index] = append(a.args[ev.Index], ev.Delta...)
	case EventTextEnd, EventThinkingEnd, EventToolCallEnd:
		if ev.Part != nil {
			a.set(ev.Index, *ev.Part)
		} else {
			a.flush(ev.Index)
		}
		delete(a.text, ev.Index)
		delete(a.args, ev.Index)
	case EventDone, EventError:
		if ev.Message != nil {
			a.msg = *ev.Message
			a.final = true
		}
	}
}

// Message returns the message built so far. Tool calls still streaming get
// their arguments normalised with [ToolArguments].
func (a *Accumulator) Message() Message {
	m := a.msg
	if m.Role == "" {
		m.Role = RoleAssistant
	}
	if a.final || len(a.args) == 0 && len(a.text) == 0 {
		return m
	}
	m.Content = append([]Part(nil), m.Content...)
	for i, raw := range a.args {
		m.Content[i].Arguments = ToolArguments(raw)
	}
	for i, b := range a.text {
		setText(&m.Content[i], b.String())
	}
	return m
}

func (a *Accumulator) builder(i int) *strings.Builder {
	if a.text == nil {
		a.text = make(map[int]*strings.Builder)
	}
	b := a.text[i]
	if b == nil {
		b = new(strings.Builder)
		b.WriteString(a.msg.Content[i].Text + a.msg.Content[i].Thinking)
		a.text[i] = b
	}
	return b
}

// flush moves an open part's builder into the part.
func (a *Accumulator) flush(i int) {
	if b, ok := a.text[i]; ok && i < len(a.msg.Content) {
		setText(&a.msg.Content[i], b.String())
	}
}

func setText(p *Part, s string) {
	if p.Type == PartThinking {
		p.Thinking = s
	} else {
		p.Text = s
	}
}

func (a *Accumulator) set(i int, p Part) {
	for len(a.msg.Content) <= i {
		a.msg.Content = append(a.msg.Content, Part{})
	}
	a.msg.Content[i] = p
}

func (a *Accumulator) at(i int, t PartType) *Part {
	for len(a.msg.Content) <= i {
		a.msg.Content = append(a.msg.Content, Part{Type: t})
	}
	return &a.msg.Content[i]
}
