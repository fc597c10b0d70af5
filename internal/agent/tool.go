package agent

import (
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// resultMessage is the tool result message that answers call.
func resultMessage(r tool.Result, call llm.Part) llm.Message {
	content := r.Content
	if len(content) == 0 {
		content = []llm.Part{llm.Text("(no output)")}
	}
	return llm.Message{Role: llm.RoleToolResult, ToolCallID: call.ID, ToolName: call.Name,
		IsError: r.IsError, Content: content}
}
