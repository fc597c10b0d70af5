package agent

import (
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// request builds the next model request from the context.
func (a *Agent) request() (llm.Model, llm.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.model, llm.Request{
		System:    a.cfg.System,
		Messages:  sendable(a.messages),
		Tools:     a.specs,
		MaxTokens: a.cfg.MaxTokens,
		Thinking:  a.thinking,
		SessionID: a.session.Header().ID,
	}
}

// sendable returns the messages a provider accepts: failed and aborted
// assistant responses are left out with their tool results, and every
// remaining tool call has a result (a synthetic one if it has none).
func sendable(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	var open []llm.Part // tool calls of the last kept assistant message without a result yet
	closeOpen := func() {
		for _, c := range open {
			out = append(out, session.InterruptedResult(c))
		}
		open = nil
	}
	dropping := false
	for _, m := range msgs {
		switch {
		case m.Role == llm.RoleToolResult:
			if dropping {
				continue
			}
			for i, c := range open {
				if c.ID == m.ToolCallID {
					open = append(open[:i:i], open[i+1:]...)
					out = append(out, m)
					break
				}
			}
		case !usable(m):
			closeOpen()
			dropping = true
		default:
			closeOpen()
			dropping = false
			out = append(out, m)
			if m.Role == llm.RoleAssistant {
				open = m.ToolCalls()
			}
		}
	}
	closeOpen()
	return out
}
