package openai

import (
	"context"
	"errors"
	"fmt"
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
	ContentIndex int64              `json:"content_index"`
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
	raw      map[int]bool // thinking parts fed raw reasoning, not summaries
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
		raw:    map[int]bool{},
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
		return d.contentPart(ev, yield)
	case "response.reasoning_summary_part.added":
		_, ok := d.thinkingPart(ev.OutputIndex, ev.SummaryIndex, yield)
		return ok
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		i, ok := d.current(ev.OutputIndex, llm.PartThinking, yield)
		if ok && ev.Type == "response.reasoning_text.delta" {
			d.raw[i] = true
		}
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

// contentPart handles response.content_part.added by the part's type:
// raw reasoning (reasoning_text, from DeepSeek, OpenRouter's gpt-oss, LM
// Studio) goes on in the item's thinking part; output_text and refusal
// start a text part.
func (d *responsesDecoder) contentPart(ev *responsesEvent, yield yieldFunc) bool {
	typ := ""
	if ev.Part != nil {
		typ = string(ev.Part.Type)
	}
	switch typ {
	case "reasoning_text":
		i, ok := d.thinkingPart(ev.OutputIndex, ev.ContentIndex, yield)
		d.raw[i] = ok
		return ok
	case "refusal":
		d.refusal = true
	}
	return d.start(ev.OutputIndex, llm.Part{Type: llm.PartText}, yield)
}

// thinkingPart opens the n-th summary or reasoning part of the item at
// out and returns the item's thinking part, where its parts go one after
// the other, separated by blank lines.
func (d *responsesDecoder) thinkingPart(out, n int64, yield yieldFunc) (int, bool) {
	i, ok := d.current(out, llm.PartThinking, yield)
	if ok && n > 0 && d.text[i].Len() > 0 {
		ok = d.delta(i, "\n\n", yield)
	}
	return i, ok
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

// itemDone ends the parts of the item at out. The finished item is what
// the server meant: where the deltas fell short of it (a server that
// streams no argument deltas; encrypted reasoning always comes here) the
// rest goes out as a delta, and where they disagree with it the item wins
// and the difference is reported through Config.Warn.
func (d *responsesDecoder) itemDone(out int64, it *responsesItem, yield yieldFunc) bool {
	switch it.Type {
	case "reasoning":
		i, ok := d.current(out, llm.PartThinking, yield)
		if !ok || !d.settle(i, reasoningText(it, d.raw[i]), yield) {
			return false
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
		if !d.settle(i, string(it.Arguments), yield) {
			return false
		}
	case "message":
		if !d.messageDone(out, it, yield) {
			return false
		}
	}
	for _, i := range d.items[out] {
		if !d.end(i, yield) {
			return false
		}
	}
	return true
}

// messageDone settles the text parts of the message item at out against
// the item's text and refusal content parts, in order, starting those
// the server streamed nothing for.
func (d *responsesDecoder) messageDone(out int64, it *responsesItem, yield yieldFunc) bool {
	var texts []int
	for _, i := range d.items[out] {
		if d.msg.Content[i].Type == llm.PartText {
			texts = append(texts, i)
		}
	}
	n := 0
	for _, c := range it.Content {
		if c.Type == "reasoning_text" {
			continue // decoded into the item's thinking part, not settled
		}
		text := string(c.Text)
		if c.Type == "refusal" {
			d.refusal, text = true, string(c.Refusal)
		}
		if n >= len(texts) {
			if !d.start(out, llm.Part{Type: llm.PartText}, yield) {
				return false
			}
			texts = append(texts, len(d.msg.Content)-1)
		}
		if !d.settle(texts[n], text, yield) {
			return false
		}
		n++
	}
	return true
}

// reasoningText is the text of a finished reasoning item: its summary
// parts, or for a part fed raw reasoning (or an item without summary) its
// reasoning_text content parts, joined by blank lines.
func reasoningText(it *responsesItem, raw bool) string {
	join := func(parts []responsesContent) string {
		texts := make([]string, 0, len(parts))
		for _, s := range parts {
			texts = append(texts, string(s.Text))
		}
		return strings.Join(texts, "\n\n")
	}
	summary, content := join(it.Summary), join(it.Content)
	if raw || summary == "" {
		return content
	}
	return summary
}

// settle makes part i's text or arguments what the finished item says,
// final; an empty final keeps what was streamed. What the deltas lack of
// final goes out as one more delta; a final that contradicts them
// replaces them (the end event carries it). Either difference from
// deltas that were streamed is reported; a part streamed without any
// delta (LM Studio's arguments) is not.
func (d *responsesDecoder) settle(i int, final string, yield yieldFunc) bool {
	var got string
	if d.msg.Content[i].Type == llm.PartToolCall {
		got = string(d.args[i])
	} else {
		got = d.text[i].String()
	}
	if final == "" || final == got {
		return true
	}
	if got != "" {
		d.warnf("%s: the finished %s part %d (%d bytes) differs from its streamed deltas (%d bytes) from byte %d; the finished part is kept",
			d.cfg.Provider, d.msg.Content[i].Type, i, len(final), len(got), commonPrefix(got, final))
	}
	if rest, ok := strings.CutPrefix(final, got); ok {
		return d.delta(i, rest, yield)
	}
	if d.msg.Content[i].Type == llm.PartToolCall {
		d.args[i] = []byte(final)
	} else {
		d.text[i].Reset()
		d.text[i].WriteString(final)
	}
	return true
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// warnf reports a notice through Config.Warn, if set.
func (d *responsesDecoder) warnf(format string, args ...any) {
	if d.cfg.Warn != nil {
		d.cfg.Warn(fmt.Sprintf(format, args...))
	}
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
	case code == "insufficient_quota":
		return quotaError(provider, msg)
	case llm.IsOverflowMessage(msg) || code == "context_length_exceeded":
		kind = llm.KindContextOverflow
	case strings.Contains(code, "rate_limit"):
		kind = llm.KindRateLimit
	case code == "" || code == "server_error" || strings.Contains(code, "overloaded") || code == "internal_error":
		kind = llm.KindOverloaded
	}
	return &llm.Error{Kind: kind, Provider: provider, Message: msg}
}
