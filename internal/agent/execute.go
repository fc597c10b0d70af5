package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// execute runs one tool call and returns its result. Every failure the
// model can act on is a result with IsError: an unknown tool, arguments
// that are not JSON or do not match the schema, a tool error or panic.
func (a *Agent) execute(ctx context.Context, call llm.Part) ToolResult {
	e, ok := a.tools[call.Name]
	if !ok {
		return ErrorResult(fmt.Sprintf("Tool %q does not exist. Available tools: %s.", call.Name, a.toolNames()))
	}
	args := call.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if args[0] == '"' {
		// llm.ToolArguments wraps arguments that did not parse as a string.
		var raw string
		_ = json.Unmarshal(args, &raw)
		return ErrorResult(fmt.Sprintf("Invalid arguments for %s: not a JSON object: %s", call.Name, clip(raw, 200)))
	}
	if err := e.validate(args); err != nil {
		msg := err.Error()
		if !strings.Contains(msg, call.Name) {
			msg = "Invalid arguments for " + call.Name + ": " + msg
		}
		return ErrorResult(msg)
	}
	update := func(partial ToolResult) {
		a.emit(Event{Type: EventToolExecutionUpdate, ToolCallID: call.ID, ToolName: call.Name, ToolResult: &partial})
	}
	return runSafely(ctx, e.tool, args, update)
}

// runSafely runs the tool, turning an error or a panic into an error result.
func runSafely(ctx context.Context, t Tool, args json.RawMessage, update func(ToolResult)) (res ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			res = ErrorResult(fmt.Sprintf("Tool %s failed: internal error: %v", t.Name(), p))
		}
	}()
	res, err := t.Run(ctx, args, update)
	if err != nil {
		if ctx.Err() != nil {
			return ErrorResult(fmt.Sprintf("Tool %s was aborted: %v", t.Name(), err))
		}
		return ErrorResult(fmt.Sprintf("Tool %s failed: %v", t.Name(), err))
	}
	return res
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
