package anthropic

import (
	"context"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// decoder turns stream events into llm events and the final message.
type decoder struct {
	redact  *llm.Redactor
	cfg     Config
	msg     llm.Message
	usage   llm.Usage
	blocks  map[int64]int // API block index → part index
	args    map[int][]byte
	text    map[int]*strings.Builder // text and thinking of open parts
	open    map[int]bool             // parts started and not yet stopped
	stopped bool                     // message_stop seen
}

func newDecoder(cfg Config, redact *llm.Redactor) *decoder {
	return &decoder{
		redact: redact,
		cfg:    cfg,
		msg:    llm.Message{Role: llm.RoleAssistant, Provider: cfg.Provider, Model: cfg.Model},
		blocks: map[int64]int{},
		args:   map[int][]byte{},
		text:   map[int]*strings.Builder{},
		open:   map[int]bool{},
	}
}

// handle processes one event and reports whether the consumer wants more.
func (d *decoder) handle(ev *streamEvent, yield func(llm.Event, error) bool) bool {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		d.usage = llm.Usage{Input: u.InputTokens, Output: u.OutputTokens,
			CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens}
		if ev.Message.Model != "" {
			d.msg.Model = ev.Message.Model
		}
	case "content_block_start":
		return d.start(ev, yield)
	case "content_block_delta":
		return d.delta(ev, yield)
	case "content_block_stop":
		return d.stop(ev, yield)
	case "message_delta":
		d.msg.StopReason = stopReason(ev.Delta.StopReason)
		u := ev.Usage
		// message_delta counts are cumulative; input counts appear there
		// only on newer API versions, so keep message_start's when absent.
		d.usage.Output = u.OutputTokens
		if u.InputTokens > 0 {
			d.usage.Input = u.InputTokens
		}
		if u.CacheReadInputTokens > 0 {
			d.usage.CacheRead = u.CacheReadInputTokens
		}
		if u.CacheCreationInputTokens > 0 {
			d.usage.CacheWrite = u.CacheCreationInputTokens
		}
	case "message_stop":
		d.stopped = true
	}
	return true
}

func (d *decoder) start(ev *streamEvent, yield func(llm.Event, error) bool) bool {
	cb := ev.ContentBlock
	var p llm.Part
	var typ llm.EventType
	switch cb.Type {
	case "text":
		p, typ = llm.Part{Type: llm.PartText, Text: cb.Text}, llm.EventTextStart
	case "thinking":
		p, typ = llm.Part{Type: llm.PartThinking, Thinking: cb.Thinking, Signature: cb.Signature}, llm.EventThinkingStart
	case "redacted_thinking":
		p, typ = llm.Part{Type: llm.PartThinking, Signature: cb.Data, Redacted: true}, llm.EventThinkingStart
	case "tool_use":
		p, typ = llm.Part{Type: llm.PartToolCall, ID: cb.ID, Name: cb.Name}, llm.EventToolCallStart
	default:
		return true // server tools and future block types are not ours to show
	}
	if prev, ok := d.blocks[ev.Index]; ok && d.open[prev] {
		// A block index reused before its stop: end the old part first.
		if !d.end(prev, yield) {
			return false
		}
	}
	i := len(d.msg.Content)
	d.blocks[ev.Index] = i
	d.open[i] = true
	d.msg.Content = append(d.msg.Content, p)
	return yield(llm.Event{Type: typ, Index: i, Part: &p}, nil)
}

func (d *decoder) delta(ev *streamEvent, yield func(llm.Event, error) bool) bool {
	i, ok := d.blocks[ev.Index]
	if !ok || !d.open[i] {
		return true
	}
	p := &d.msg.Content[i]
	switch ev.Delta.Type {
	case "text_delta":
		d.builder(i).WriteString(ev.Delta.Text)
		return yield(llm.Event{Type: llm.EventTextDelta, Index: i, Delta: ev.Delta.Text}, nil)
	case "thinking_delta":
		d.builder(i).WriteString(ev.Delta.Thinking)
		return yield(llm.Event{Type: llm.EventThinkingDelta, Index: i, Delta: ev.Delta.Thinking}, nil)
	case "signature_delta":
		p.Signature += ev.Delta.Signature
	case "input_json_delta":
		if ev.Delta.PartialJSON == "" {
			return true
		}
		d.args[i] = append(d.args[i], ev.Delta.PartialJSON...)
		return yield(llm.Event{Type: llm.EventToolCallDelta, Index: i, Delta: ev.Delta.PartialJSON}, nil)
	}
	return true
}

func (d *decoder) stop(ev *streamEvent, yield func(llm.Event, error) bool) bool {
	i, ok := d.blocks[ev.Index]
	if !ok || !d.open[i] {
		return true
	}
	return d.end(i, yield)
}

// end completes part i and emits its end event.
func (d *decoder) end(i int, yield func(llm.Event, error) bool) bool {
	delete(d.open, i)
	d.flushText(i)
	p := &d.msg.Content[i]
	var typ llm.EventType
	switch p.Type {
	case llm.PartText:
		typ = llm.EventTextEnd
	case llm.PartThinking:
		typ = llm.EventThinkingEnd
	default:
		p.Arguments = llm.ToolArguments(d.args[i])
		delete(d.args, i)
		typ = llm.EventToolCallEnd
	}
	end := *p
	return yield(llm.Event{Type: typ, Index: i, Part: &end}, nil)
}

// finish ends a stream whose body ended without an error.
func (d *decoder) finish(ctx context.Context, yield func(llm.Event, error) bool) {
	if !d.stopped {
		d.fail(yield, classify(ctx, d.cfg.Provider, errTruncated))
		return
	}
	// Parts a server never stopped still end before the message does.
	for i := range d.msg.Content {
		if d.open[i] && !d.end(i, yield) {
			return
		}
	}
	if d.msg.StopReason == "" {
		d.msg.StopReason = llm.StopEnd
	}
	d.setUsage()
	msg := d.msg
	yield(llm.Event{Type: llm.EventDone, Message: &msg}, nil)
}

// fail ends the stream with the partial message and err.
// Every error of the adapter passes here: its text is redacted once, for
// the error and the partial message alike.
func (d *decoder) fail(yield func(llm.Event, error) bool, err error) {
	err = d.redact.Error(err)
	d.closeArgs()
	d.msg.StopReason = llm.StopError
	if isAbort(err) {
		d.msg.StopReason = llm.StopAborted
	}
	d.msg.ErrorMessage = err.Error()
	d.setUsage()
	msg := d.msg
	yield(llm.Event{Type: llm.EventError, Message: &msg}, err)
}

func (d *decoder) builder(i int) *strings.Builder {
	b := d.text[i]
	if b == nil {
		p := d.msg.Content[i]
		b = new(strings.Builder)
		b.WriteString(p.Text + p.Thinking)
		d.text[i] = b
	}
	return b
}

// flushText moves an open part's text or thinking into the part.
func (d *decoder) flushText(i int) {
	b, ok := d.text[i]
	if !ok {
		return
	}
	if p := &d.msg.Content[i]; p.Type == llm.PartThinking {
		p.Thinking = b.String()
	} else {
		p.Text = b.String()
	}
	delete(d.text, i)
}

// closeArgs finishes the parts of a stream cut off mid-part: text so far,
// and tool arguments normalised.
func (d *decoder) closeArgs() {
	for i := range d.text {
		d.flushText(i)
	}
	for i, raw := range d.args {
		d.msg.Content[i].Arguments = llm.ToolArguments(raw)
	}
	for i := range d.msg.Content {
		if p := &d.msg.Content[i]; p.Type == llm.PartToolCall && p.Arguments == nil {
			p.Arguments = llm.ToolArguments(nil)
		}
	}
}

func (d *decoder) setUsage() {
	u := d.usage
	u.Cost = d.cfg.Info.Price.Cost(u)
	if u != (llm.Usage{}) {
		d.msg.Usage = &u
	}
}

func stopReason(r string) llm.StopReason {
	switch r {
	case "tool_use":
		return llm.StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopLength
	case "refusal":
		return llm.StopRefusal
	}
	return llm.StopEnd
}
