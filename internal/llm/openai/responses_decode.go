package openai

import (
	"context"
	"errors"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// errIncomplete reports a Responses stream that ended before its final
// event.
var errIncomplete = errors.New("stream ended before response.completed")

// responsesEvent is one Responses API stream event with the fields the
// decoder reads; which are set depends on Type.
type responsesEvent struct {
	Type         string             `json:"type"`
	OutputIndex  int64              `json:"output_index"`
	SummaryIndex int64              `json:"summary_index"`
	Delta        lenientString      `json:"delta"`
	Item         *responsesItem     `json:"item"`
	Part         *responsesContent  `json:"part"`
	Response     *responsesResponse `json:"response"`
	// The error event: code and message at the top level, or (from some
	// servers) inside an error object.
	Code    lenientString `json:"code"`
	Message lenientString `json:"message"`
	Error   *apiError     `json:"error"`
}

// responsesItem is an output item: a message, reasoning or a function call.
type responsesItem struct {
	Type             string             `json:"type"`
	CallID           lenientString      `json:"call_id"`
	Name             lenientString      `json:"name"`
	Arguments        lenientString      `json:"arguments"`
	EncryptedContent lenientString      `json:"encrypted_content"`
	Summary          []responsesContent `json:"summary"`
	Content          []responsesContent `json:"content"`
}

// responsesContent is a message's content part or a reasoning summary part.
type responsesContent struct {
	Type    lenientString `json:"type"`
	Text    lenientString `json:"text"`
	Refusal lenientString `json:"refusal"`
}

// responsesResponse is the response object of the lifecycle events.
type responsesResponse struct {
	Error *struct {
		Code    lenientString `json:"code"`
		Message lenientString `json:"message"`
	} `json:"error"`
	IncompleteDetails *struct {
		Reason lenientString `json:"reason"`
	} `json:"incomplete_details"`
	Usage *struct {
		InputTokens        int64 `json:"input_tokens"`
		InputTokensDetails struct {
			CachedTokens     int64 `json:"cached_tokens"`
			CacheWriteTokens int64 `json:"cache_write_tokens"`
		} `json:"input_tokens_details"`
		OutputTokens        int64 `json:"output_tokens"`
		OutputTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

// responsesDecoder turns Responses events into llm events and the final
// message. Each output item becomes a part (a message item one part per
// content part), started when the item or content part is added and ended
// when the item is done; a reasoning item's summary parts join into one
// thinking part, separated by blank lines.
type responsesDecoder struct {
	redact   *llm.Redactor
	cfg      Config
	msg      llm.Message
	usage    llm.Usage
	items    map[int64][]int // output index → its parts
	text     map[int]*strings.Builder
	args     map[int][]byte
	open     map[int]bool // parts started and not ended
	refusal  bool
	finished bool
}

func newResponsesDecoder(cfg Config, redact *llm.Redactor) *responsesDecoder {
	return &responsesDecoder{
		redact: redact,
		cfg:    cfg,
		msg:    llm.Message{Role: llm.RoleAssistant, Provider: cfg.Provider, Model: cfg.Model},
		items:  map[int64][]int{},
		text:   map[int]*strings.Builder{},
		args:   map[int][]byte{},
		open:   map[int]bool{},
	}
}

type yieldFunc = func(llm.Event, error) bool

// handle processes one event and reports whether the consumer wants more.
func (d *responsesDecoder) handle(ev *responsesEvent, data []byte, yield yieldFunc) bool {
	switch ev.Type {
	case "response.output_item.added":
		if ev.Item == nil {
			return true
		}
		switch ev.Item.Type {
		case "reasoning":
			return d.start(ev.OutputIndex, llm.Part{Type: llm.PartThinking}, yield)
		case "function_call":
			return d.start(ev.OutputIndex, d.callPart(ev.Item), yield)
		}
	case "response.content_part.added":
		if ev.Part != nil && ev.Part.Type == "refusal" {
			d.refusal = true
		}
		return d.start(ev.OutputIndex, llm.Part{Type: llm.PartText}, yield)
	case "response.reasoning_summary_part.added":
		i, ok := d.current(ev.OutputIndex, llm.PartThinking, yield)
		if ok && ev.SummaryIndex > 0 && d.text[i].Len() > 0 {
			return d.delta(i, "\n\n", yield)
		}
		return ok
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		i, ok := d.current(ev.OutputIndex, llm.PartThinking, yield)
		return ok && d.delta(i, string(ev.Delta), yield)
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Type == "response.refusal.delta" {
			d.refusal = true
		}
		i, ok := d.current(ev.OutputIndex, llm.PartText, yield)
		return ok && d.delta(i, string(ev.Delta), yield)
	case "response.function_call_arguments.delta":
		i, ok := d.current(ev.OutputIndex, llm.PartToolCall, yield)
		return ok && d.delta(i, string(ev.Delta), yield)
	case "response.output_item.done":
		if ev.Item != nil {
			return d.itemDone(ev.OutputIndex, ev.Item, yield)
		}
	case "response.completed", "response.incomplete":
		return d.complete(ev, yield)
	case "response.failed":
		msg, code := "response failed", ""
		if r := ev.Response; r != nil && r.Error != nil {
			msg, code = string(r.Error.Message), string(r.Error.Code)
		}
		d.fail(yield, responsesError(d.cfg.Provider, code, msg, data))
		return false
	case "error":
		code, msg := string(ev.Code), string(ev.Message)
		if ev.Error != nil {
			code, msg = ev.Error.Type, ev.Error.Message
			if c, ok := ev.Error.Code.(string); ok && c != "" {
				code = c
			}
		}
		d.fail(yield, responsesError(d.cfg.Provider, code, msg, data))
		return false
	}
	return true
}

func (d *responsesDecoder) callPart(it *responsesItem) llm.Part {
	return llm.Part{Type: llm.PartToolCall, ID: string(it.CallID), Name: string(it.Name)}
}

// start begins a new part for the output item at index out.
func (d *responsesDecoder) start(out int64, p llm.Part, yield yieldFunc) bool {
	i := len(d.msg.Content)
	d.msg.Content = append(d.msg.Content, p)
	d.items[out] = append(d.items[out], i)
	d.open[i] = true
	typ := llm.EventTextStart
	switch p.Type {
	case llm.PartThinking:
		typ = llm.EventThinkingStart
		d.text[i] = new(strings.Builder)
	case llm.PartToolCall:
		typ = llm.EventToolCallStart
	default:
		d.text[i] = new(strings.Builder)
	}
	start := p
	return yield(llm.Event{Type: typ, Index: i, Part: &start}, nil)
}

// current returns the open part of type t of the item at out, starting
// one when the server sent no event that would have.
func (d *responsesDecoder) current(out int64, t llm.PartType, yield yieldFunc) (int, bool) {
	if parts := d.items[out]; len(parts) > 0 {
		if i := parts[len(parts)-1]; d.open[i] && d.msg.Content[i].Type == t {
			return i, true
		}
	}
	if !d.start(out, llm.Part{Type: t}, yield) {
		return 0, false
	}
	return len(d.msg.Content) - 1, true
}

// delta adds a fragment to part i.
func (d *responsesDecoder) delta(i int, s string, yield yieldFunc) bool {
	if s == "" {
		return true
	}
	typ := llm.EventTextDelta
	switch d.msg.Content[i].Type {
	case llm.PartThinking:
		typ = llm.EventThinkingDelta
		d.text[i].WriteString(s)
	case llm.PartToolCall:
		typ = llm.EventToolCallDelta
		d.args[i] = append(d.args[i], s...)
	default:
		d.text[i].WriteString(s)
	}
	return yield(llm.Event{Type: typ, Index: i, Delta: s}, nil)
}

// itemDone ends the parts of the item at out, completing them from the
// item where the deltas fell short (encrypted reasoning always comes
// here).
func (d *responsesDecoder) itemDone(out int64, it *responsesItem, yield yieldFunc) bool {
	switch it.Type {
	case "reasoning":
		i, ok := d.current(out, llm.PartThinking, yield)
		if !ok {
			return false
		}
		if d.text[i].Len() == 0 {
			var texts []string
			for _, s := range it.Summary {
				texts = append(texts, string(s.Text))
			}
			d.text[i].WriteString(strings.Join(texts, "\n\n"))
		}
		d.msg.Content[i].Signature = string(it.EncryptedContent)
	case "function_call":
		i, ok := d.current(out, llm.PartToolCall, yield)
		if !ok {
			return false
		}
		p := &d.msg.Content[i]
		if p.ID == "" {
			p.ID = string(it.CallID)
		}
		if p.Name == "" {
			p.Name = string(it.Name)
		}
		if it.Arguments != "" {
			d.args[i] = []byte(it.Arguments)
		}
	case "message":
		if len(d.items[out]) == 0 {
			// A server that streamed no deltas: the text is in the item.
			for _, c := range it.Content {
				text := string(c.Text)
				if c.Type == "refusal" {
					d.refusal, text = true, string(c.Refusal)
				}
				if !d.start(out, llm.Part{Type: llm.PartText}, yield) || !d.delta(len(d.msg.Content)-1, text, yield) {
					return false
				}
			}
		}
	}
	for _, i := range d.items[out] {
		if !d.end(i, yield) {
			return false
		}
	}
	return true
}

// end ends part i if it is open.
func (d *responsesDecoder) end(i int, yield yieldFunc) bool {
	if !d.open[i] {
		return true
	}
	delete(d.open, i)
	d.flush(i)
	p := d.msg.Content[i]
	typ := llm.EventTextEnd
	switch p.Type {
	case llm.PartThinking:
		typ = llm.EventThinkingEnd
	case llm.PartToolCall:
		typ = llm.EventToolCallEnd
	}
	return yield(llm.Event{Type: typ, Index: i, Part: &p}, nil)
}

// flush moves part i's accumulated text or arguments into the part.
func (d *responsesDecoder) flush(i int) {
	p := &d.msg.Content[i]
	switch p.Type {
	case llm.PartToolCall:
		p.Arguments = llm.ToolArguments(d.args[i])
		delete(d.args, i)
	case llm.PartThinking:
		p.Thinking = d.text[i].String()
	default:
		p.Text = d.text[i].String()
	}
}

// complete handles response.completed and response.incomplete.
func (d *responsesDecoder) complete(ev *responsesEvent, yield yieldFunc) bool {
	d.finished = true
	if r := ev.Response; r != nil && r.Usage != nil {
		u := r.Usage
		cached, written := u.InputTokensDetails.CachedTokens, u.InputTokensDetails.CacheWriteTokens
		d.usage = llm.Usage{Input: max(0, u.InputTokens-cached-written), CacheRead: cached, CacheWrite: written,
			Output: u.OutputTokens, Reasoning: u.OutputTokensDetails.ReasoningTokens}
	}
	switch {
	case ev.Type == "response.incomplete":
		d.msg.StopReason = llm.StopLength
		if r := ev.Response; r != nil && r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "content_filter" {
			d.msg.StopReason = llm.StopContentFilter
		}
	case d.refusal:
		d.msg.StopReason = llm.StopRefusal
	default:
		d.msg.StopReason = llm.StopEnd
	}
	return d.endAll(yield)
}

// endAll ends every open part, in part order.
func (d *responsesDecoder) endAll(yield yieldFunc) bool {
	for i := range d.msg.Content {
		if !d.end(i, yield) {
			return false
		}
	}
	return true
}

// finish ends a stream whose body ended without an error.
func (d *responsesDecoder) finish(ctx context.Context, yield yieldFunc) {
	if !d.finished {
		d.fail(yield, classify(ctx, d.cfg.Provider, errIncomplete))
		return
	}
	if !d.endAll(yield) {
		return
	}
	if d.msg.StopReason == llm.StopEnd && len(d.msg.ToolCalls()) > 0 {
		d.msg.StopReason = llm.StopToolUse
	}
	d.setUsage()
	msg := d.msg
	yield(llm.Event{Type: llm.EventDone, Message: &msg}, nil)
}

// fail ends the stream with the partial message and err, redacted.
func (d *responsesDecoder) fail(yield yieldFunc, err error) {
	err = d.redact.Error(err)
	for i := range d.open {
		d.flush(i)
	}
	clear(d.open)
	d.msg.StopReason = llm.StopError
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		d.msg.StopReason = llm.StopAborted
	}
	d.msg.ErrorMessage = err.Error()
	d.setUsage()
	msg := d.msg
	yield(llm.Event{Type: llm.EventError, Message: &msg}, err)
}

func (d *responsesDecoder) setUsage() {
	u := d.usage
	u.Cost = d.cfg.Info.Price.Cost(u)
	if u != (llm.Usage{}) {
		d.msg.Usage = &u
	}
}

// responsesError classifies a failure sent inside the stream (an error
// event or response.failed) by its code.
func responsesError(provider, code, msg string, data []byte) *llm.Error {
	if msg == "" {
		msg = "error event: " + string(data)
	}
	kind := llm.KindInvalidRequest
	switch {
	case llm.IsOverflowMessage(msg) || code == "context_length_exceeded":
		kind = llm.KindContextOverflow
	case strings.Contains(code, "rate_limit"):
		kind = llm.KindRateLimit
	case code == "" || code == "server_error" || strings.Contains(code, "overloaded") || code == "internal_error":
		kind = llm.KindOverloaded
	}
	return &llm.Error{Kind: kind, Provider: provider, Message: msg}
}
