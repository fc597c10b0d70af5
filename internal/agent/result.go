package agent

import "github.com/bonsai-run/bonsai/internal/llm"

// EndReason says why a run ended.
type EndReason string

// The end reasons.
const (
	EndStop       EndReason = "stop"            // the model answered without asking for tools
	EndAborted    EndReason = "aborted"         // the caller cancelled the context
	EndTimeout    EndReason = "timeout"         // Config.Deadline passed
	EndMaxTurns   EndReason = "max_turns"       // Config.MaxTurns turns were used
	EndBudget     EndReason = "budget_exceeded" // the cost reached Config.Budget
	EndNoProgress EndReason = "no_progress"     // the same failing call three times in a row
	EndStopped    EndReason = "stopped"         // a tool result asked to end the run (tool.Result.Terminate)
	EndError      EndReason = "error"           // the model or the session failed
)

// Result is how a run ended.
type Result struct {
	Reason EndReason `json:"reason"`
	// Detail explains the reason in one sentence (the error, the repeated call).
	Detail string `json:"detail,omitempty"`
	// Turns is the number of model requests made in this run.
	Turns int `json:"turns"`
	// Usage sums the usage and cost of every response of this run.
	Usage llm.Usage `json:"usage"`
	// Final is the last assistant message, nil if none arrived.
	Final *llm.Message `json:"final,omitempty"`
	// Err is the error of an "error" run.
	Err error `json:"-"`
}

// Text returns the text of the final assistant message.
func (r Result) Text() string {
	if r.Final == nil {
		return ""
	}
	return r.Final.Text()
}
