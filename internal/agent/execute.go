package agent

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// execute runs one tool call and returns its result. Every failure the
// model can act on is a result with IsError: an unknown tool here, and
// through tool.Checked.Call arguments that are not a JSON object or do not
// match the schema, a tool error or panic.
func (a *Agent) execute(ctx context.Context, call llm.Part) tool.Result {
	c, ok := a.tools[call.Name]
	if !ok {
		return tool.Error(fmt.Sprintf("Tool %q does not exist. Available tools: %s.", call.Name, a.toolNames()))
	}
	update := func(partial tool.Result) {
		a.emit(Event{Type: EventToolExecutionUpdate, ToolCallID: call.ID, ToolName: call.Name, ToolResult: &partial})
	}
	return c.Call(ctx, call.Arguments, update)
}

func (a *Agent) toolNames() string {
	names := make([]string, 0, len(a.tools))
	for n := range a.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
