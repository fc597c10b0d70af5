package llmtest

import (
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Events returns the start, delta and end events that stream msg's
// content, splitting text, thinking and tool arguments into deltas of at
// most chunk bytes (chunk <= 0 means 16). It does not add the terminal
// event.
func Events(msg llm.Message, chunk int) []llm.Event {
	if chunk <= 0 {
		chunk = 16
	}
	var evs []llm.Event
	for i, p := range msg.Content {
		switch p.Type {
		case llm.PartText:
			evs = append(evs, llm.Event{Type: llm.EventTextStart, Index: i, Part: &llm.Part{Type: llm.PartText}})
			for _, d := range Split(p.Text, chunk) {
				evs = append(evs, llm.Event{Type: llm.EventTextDelta, Index: i, Delta: d})
			}
			evs = append(evs, llm.Event{Type: llm.EventTextEnd, Index: i, Part: &p})
		case llm.PartThinking:
			evs = append(evs, llm.Event{Type: llm.EventThinkingStart, Index: i, Part: &llm.Part{Type: llm.PartThinking, Redacted: p.Redacted}})
			for _, d := range Split(p.Thinking, chunk) {
				evs = append(evs, llm.Event{Type: llm.EventThinkingDelta, Index: i, Delta: d})
			}
			evs = append(evs, llm.Event{Type: llm.EventThinkingEnd, Index: i, Part: &p})
		case llm.PartToolCall:
			evs = append(evs, llm.Event{Type: llm.EventToolCallStart, Index: i,
				Part: &llm.Part{Type: llm.PartToolCall, ID: p.ID, Name: p.Name}})
			for _, d := range Split(string(p.Arguments), chunk) {
				evs = append(evs, llm.Event{Type: llm.EventToolCallDelta, Index: i, Delta: d})
			}
			p.Arguments = llm.ToolArguments(p.Arguments)
			evs = append(evs, llm.Event{Type: llm.EventToolCallEnd, Index: i, Part: &p})
		default:
			evs = append(evs, llm.Event{Type: llm.EventTextEnd, Index: i, Part: &p})
		}
	}
	return evs
}

// Split cuts s into pieces of at most n bytes without splitting a UTF-8
// sequence.
func Split(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		if cut == 0 {
			cut = n
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// fillerText is the text of each delta of an endless stream.
var fillerText = strings.Repeat("all work and no play ", 48)
