package openai

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// errTruncated reports a stream that ended without a finish_reason.
var errTruncated = errors.New("stream ended before finish_reason")

// decoder turns chunks into llm events and the final message. Text and
// thinking parts end when another part starts; tool calls, whose deltas
// may interleave, end when the choice finishes.
type decoder struct {
	redact   *llm.Redactor
	cfg      Config
	msg      llm.Message
	usage    llm.Usage
	open     int             // index of the open text or thinking part, or -1
	text     strings.Builder // the open part's text so far
	calls    map[int64]int   // tool call index → part index
	args     map[int][]byte
	refusal  bool // the answer came as refusal deltas
	finished bool
}

func newDecoder(cfg Config, redact *llm.Redactor) *decoder {
	return &decoder{
		redact: redact,
		cfg:    cfg,
		msg:    llm.Message{Role: llm.RoleAssistant, Provider: cfg.Provider, Model: cfg.Model},
		open:   -1,
		calls:  map[int64]int{},
		args:   map[int][]byte{},
	}
}

// handle processes one chunk and reports whether the consumer wants more.
func (d *decoder) handle(c *chunk, yield func(llm.Event, error) bool) bool {
	if c.Usage != nil {
		u := c.Usage
		cached := u.PromptTokensDetails.CachedTokens
		d.usage = llm.Usage{Input: u.PromptTokens - cached, Output: u.CompletionTokens, CacheRead: cached,
			Reasoning: u.CompletionTokensDetails.ReasoningTokens}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		delta := ch.Delta
		r := delta.ReasoningContent
		if r == "" {
			r = delta.Reasoning
		}
		if r != "" && !d.appendText(llm.PartThinking, string(r), yield) {
			return false
		}
		if delta.Content != "" && !d.appendText(llm.PartText, string(delta.Content), yield) {
			return false
		}
		// A refusal is the model's answer; it is kept as text and ends the
		// message as a refusal.
		if delta.Refusal != "" {
			d.refusal = true
			if !d.appendText(llm.PartText, string(delta.Refusal), yield) {
				return false
			}
		}
		for _, tc := range delta.ToolCalls {
			if !d.toolCall(tc, yield) {
				return false
			}
		}
		if ch.FinishReason != "" {
			d.finished = true
			d.msg.StopReason = stopReason(string(ch.FinishReason))
			if !d.endAll(yield) {
				return false
			}
		}
	}
	return true
}

// appendText adds a text or thinking delta, starting a part when the open
// one is of another kind.
func (d *decoder) appendText(t llm.PartType, s string, yield func(llm.Event, error) bool) bool {
	start, deltaType := llm.EventTextStart, llm.EventTextDelta
	if t == llm.PartThinking {
		start, deltaType = llm.EventThinkingStart, llm.EventThinkingDelta
	}
	if d.open < 0 || d.msg.Content[d.open].Type != t {
		if !d.endOpen(yield) {
			return false
		}
		d.open = len(d.msg.Content)
		d.msg.Content = append(d.msg.Content, llm.Part{Type: t})
		if !yield(llm.Event{Type: start, Index: d.open, Part: &llm.Part{Type: t}}, nil) {
			return false
		}
	}
	d.text.WriteString(s)
	return yield(llm.Event{Type: deltaType, Index: d.open, Delta: s}, nil)
}

func (d *decoder) toolCall(tc toolCallDelta, yield func(llm.Event, error) bool) bool {
	i, ok := d.calls[tc.Index]
	if !ok {
		if !d.endOpen(yield) {
			return false
		}
		id := tc.ID
		if id == "" {
			// Some servers leave ids out; results still need one to refer to.
			id = fmt.Sprintf("call_%d", tc.Index)
		}
		i = len(d.msg.Content)
		d.calls[tc.Index] = i
		p := llm.Part{Type: llm.PartToolCall, ID: id, Name: string(tc.Function.Name)}
		d.msg.Content = append(d.msg.Content, p)
		if !yield(llm.Event{Type: llm.EventToolCallStart, Index: i, Part: &p}, nil) {
			return false
		}
	} else if tc.Function.Name != "" && d.msg.Content[i].Name == "" {
		d.msg.Content[i].Name = string(tc.Function.Name)
	}
	if a := tc.Function.Arguments; a != "" {
		d.args[i] = append(d.args[i], a...)
		return yield(llm.Event{Type: llm.EventToolCallDelta, Index: i, Delta: string(a)}, nil)
	}
	return true
}

// endOpen ends the open text or thinking part.
func (d *decoder) endOpen(yield func(llm.Event, error) bool) bool {
	if d.open < 0 {
		return true
	}
	i := d.open
	d.open = -1
	d.flushText(i)
	p := d.msg.Content[i]
	typ := llm.EventTextEnd
	if p.Type == llm.PartThinking {
		typ = llm.EventThinkingEnd
	}
	return yield(llm.Event{Type: typ, Index: i, Part: &p}, nil)
}

// endAll ends the open part and every tool call, in part order.
func (d *decoder) endAll(yield func(llm.Event, error) bool) bool {
	if !d.endOpen(yield) {
		return false
	}
	for i := range d.msg.Content {
		p := &d.msg.Content[i]
		if p.Type != llm.PartToolCall || p.Arguments != nil {
			continue
		}
		p.Arguments = llm.ToolArguments(d.args[i])
		delete(d.args, i)
		end := *p
		if !yield(llm.Event{Type: llm.EventToolCallEnd, Index: i, Part: &end}, nil) {
			return false
		}
	}
	return true
}

// finish ends a stream whose body ended without an error.
func (d *decoder) finish(ctx context.Context, yield func(llm.Event, error) bool) {
	if !d.finished {
		d.fail(yield, classify(ctx, d.cfg.Provider, errTruncated))
		return
	}
	// Anything a server sent after its finish_reason still ends in order.
	if !d.endAll(yield) {
		return
	}
	if len(d.msg.ToolCalls()) > 0 && d.msg.StopReason == llm.StopEnd {
		// Some servers finish tool calls with "stop".
		d.msg.StopReason = llm.StopToolUse
	}
	if d.refusal && d.msg.StopReason == llm.StopEnd {
		d.msg.StopReason = llm.StopRefusal
	}
	d.setUsage()
	msg := d.msg
	yield(llm.Event{Type: llm.EventDone, Message: &msg}, nil)
}

// flushText moves the open part's text into part i.
func (d *decoder) flushText(i int) {
	if p := &d.msg.Content[i]; p.Type == llm.PartThinking {
		p.Thinking = d.text.String()
	} else {
		p.Text = d.text.String()
	}
	d.text.Reset()
}

// fail ends the stream with the partial message and err.
// Every error of the adapter passes here: its text is redacted once, for
// the error and the partial message alike.
func (d *decoder) fail(yield func(llm.Event, error) bool, err error) {
	err = d.redact.Error(err)
	if d.open >= 0 {
		d.flushText(d.open)
		d.open = -1
	}
	for i := range d.msg.Content {
		if p := &d.msg.Content[i]; p.Type == llm.PartToolCall && p.Arguments == nil {
			p.Arguments = llm.ToolArguments(d.args[i])
		}
	}
	d.msg.StopReason = llm.StopError
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		d.msg.StopReason = llm.StopAborted
	}
	d.msg.ErrorMessage = err.Error()
	d.setUsage()
	msg := d.msg
	yield(llm.Event{Type: llm.EventError, Message: &msg}, err)
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
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "length":
		return llm.StopLength
	case "content_filter":
		return llm.StopContentFilter
	}
	return llm.StopEnd
}
