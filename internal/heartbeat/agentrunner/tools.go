package agentrunner

import (
	"context"
	"encoding/json"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/heartbeat/tickettool"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// CodingTools returns the seven coding tools working through ex, as agent
// tools.
func CodingTools(ex executor.Executor) []agent.Tool {
	ts := tools.New(ex, tools.Options{})
	out := make([]agent.Tool, len(ts))
	for i, t := range ts {
		out[i] = codingTool{t}
	}
	return out
}

// codingTool adapts a tools.Tool to agent.Tool.
type codingTool struct{ tools.Tool }

var _ agent.ReadOnly = codingTool{}

// ReadOnly reports whether the tool never changes the workspace, so the
// agent may run several such calls of one turn in parallel.
func (c codingTool) ReadOnly() bool {
	switch c.Name() {
	case "read", "grep", "find", "ls":
		return true
	}
	return false
}

func (c codingTool) Run(ctx context.Context, args json.RawMessage, update func(agent.ToolResult)) (agent.ToolResult, error) {
	r, err := c.Tool.Run(ctx, args, func(p tools.Result) { update(fromTools(p)) })
	return fromTools(r), err
}

func fromTools(r tools.Result) agent.ToolResult {
	out := agent.ToolResult{IsError: r.IsError}
	for _, c := range r.Content {
		if c.Type == "image" {
			out.Content = append(out.Content, llm.Image(c.MIMEType, c.Data))
		} else {
			out.Content = append(out.Content, llm.Text(c.Text))
		}
	}
	if r.Details != nil {
		out.Details, _ = json.Marshal(r.Details)
	}
	return out
}

// ticketTool adapts a tickettool.Tool to agent.Tool.
type ticketTool struct{ tickettool.Tool }

func (t ticketTool) Run(ctx context.Context, args json.RawMessage, _ func(agent.ToolResult)) (agent.ToolResult, error) {
	r, err := t.Tool.Run(ctx, args)
	out := agent.ToolResult{Content: []llm.Part{llm.Text(r.Text)}, IsError: r.IsError, Terminate: r.Terminate}
	if r.Details != nil {
		out.Details, _ = json.Marshal(r.Details)
	}
	return out, err
}
