package agent

import (
	"encoding/json"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// EventType names an agent event.
type EventType string

// The agent events, in the order of docs/design.md §5.
const (
	EventAgentStart          EventType = "agent_start"
	EventTurnStart           EventType = "turn_start"
	EventMessageStart        EventType = "message_start"
	EventMessageUpdate       EventType = "message_update" // one streamed delta of the assistant message
	EventMessageEnd          EventType = "message_end"
	EventToolExecutionStart  EventType = "tool_execution_start"
	EventToolExecutionUpdate EventType = "tool_execution_update"
	EventToolExecutionEnd    EventType = "tool_execution_end"
	EventTurnEnd             EventType = "turn_end"
	EventAgentEnd            EventType = "agent_end"

	// EventRetry says the model request failed and will be retried.
	EventRetry EventType = "retry"
	// EventCompactionStart and EventCompactionEnd bracket a compaction.
	EventCompactionStart EventType = "compaction_start"
	EventCompactionEnd   EventType = "compaction_end"
)

// Event is one step of a run. Which fields are set depends on Type.
type Event struct {
	Type EventType `json:"type"`
	// Turn is the 1-based turn number (turn_start, turn_end).
	Turn int `json:"turn,omitempty"`
	// Message is the message of message_start and message_end (for the
	// assistant, empty at start and final at end) and the assistant
	// message of turn_end.
	Message *llm.Message `json:"message,omitempty"`
	// Delta is the stream event of message_update and the retry of retry.
	Delta *llm.Event `json:"delta,omitempty"`
	// ToolCallID, ToolName and Args identify the call of tool_execution_*.
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	// ToolResult is the partial (update) or final (end) result.
	ToolResult *tool.Result `json:"result,omitempty"`
	// ToolResults are the tool result messages of turn_end.
	ToolResults []llm.Message `json:"toolResults,omitempty"`
	// Compaction is set on compaction_end.
	Compaction *session.Compaction `json:"compaction,omitempty"`
	// Run is how the run ended (agent_end).
	Run *Result `json:"run,omitempty"`
}
