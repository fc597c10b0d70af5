package agent

import (
	"context"
	"encoding/json"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Tool is a tool the model can call.
type Tool interface {
	// Name is the name the model calls the tool by.
	Name() string
	// Description tells the model what the tool does.
	Description() string
	// Schema is the JSON schema of the arguments (an object schema).
	Schema() json.RawMessage
	// Run executes one call with arguments already validated against
	// Schema. update, never nil, may be called with partial results while
	// the tool runs. A failure the model should read is a result with
	// IsError; the error is for failures of the runtime itself, and is
	// shown to the model too.
	Run(ctx context.Context, args json.RawMessage, update func(ToolResult)) (ToolResult, error)
}

// ReadOnly is implemented by tools that never change anything; read-only
// calls of one turn run in parallel.
type ReadOnly interface {
	ReadOnly() bool
}

// Validator is implemented by tools that validate their own arguments;
// the agent then uses it instead of compiling Schema itself.
type Validator interface {
	Validate(args json.RawMessage) error
}

// ToolResult is the outcome of one tool call.
type ToolResult struct {
	// Content is what the model reads: text and image parts.
	Content []llm.Part `json:"content"`
	// IsError reports whether the call failed.
	IsError bool `json:"isError,omitempty"`
	// Details is structured data for user interfaces (diffs, exit codes);
	// the model never sees it. It is stored with the result in the session.
	Details json.RawMessage `json:"details,omitempty"`
	// Terminate ends the run once the turn's tool calls are done (a
	// ticket_ask waiting for a human); the run ends with EndStopped.
	Terminate bool `json:"-"`
}

// ErrorResult returns a failed result holding one text part.
func ErrorResult(text string) ToolResult {
	return ToolResult{Content: []llm.Part{llm.Text(text)}, IsError: true}
}

// TextResult returns a successful result holding one text part.
func TextResult(text string) ToolResult {
	return ToolResult{Content: []llm.Part{llm.Text(text)}}
}

func (r ToolResult) message(call llm.Part) llm.Message {
	content := r.Content
	if len(content) == 0 {
		content = []llm.Part{llm.Text("(no output)")}
	}
	return llm.Message{Role: llm.RoleToolResult, ToolCallID: call.ID, ToolName: call.Name,
		IsError: r.IsError, Content: content}
}
