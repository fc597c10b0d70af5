package agent

import (
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// StopError ends a run because of how the model stopped: it refused (Text
// is the provider's refusal), the provider's content filter cut the
// answer, or the answer reached the output token limit again after the
// loop asked the model once to continue.
type StopError struct {
	Reason llm.StopReason
	Text   string
}

// Error implements the error interface.
func (e *StopError) Error() string {
	switch e.Reason {
	case llm.StopRefusal:
		if e.Text == "" {
			return "the model refused to answer"
		}
		return "the model refused to answer: " + e.Text
	case llm.StopContentFilter:
		return "the provider's content filter stopped the answer; rephrase the task or use another model"
	}
	return "the answer reached the output token limit again after the model was asked to continue; " +
		"split the task, or raise the model's maxOutputTokens (config set models.<id>.maxOutputTokens)"
}

// cutCallText answers the tool calls of an answer cut at the output limit.
const cutCallText = "Not run: your response reached the output token limit before this call was complete."

// continueText asks the model, once per run, to go on after an answer cut
// at the output token limit.
const continueText = "Your last response reached the output token limit and was cut off; tool calls in it did not run. " +
	"Continue from where you stopped, in smaller steps (for example, write a large file in several parts)."

// stopped handles the stop reasons that are not a normal end of a turn.
// It reports whether the turn was handled: err ends the run, else pending
// is what to send next. continued says whether the run already asked the
// model to continue once.
func (a *Agent) stopped(msg llm.Message, continued *bool) (handled bool, pending []llm.Message, err error) {
	switch msg.StopReason {
	case llm.StopRefusal, llm.StopContentFilter:
		return true, nil, &StopError{Reason: msg.StopReason, Text: msg.Text()}
	case llm.StopLength:
		// Cut tool calls never run: their arguments may be incomplete.
		var out turnOutcome
		for _, c := range msg.ToolCalls() {
			a.emit(Event{Type: EventToolExecutionStart, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments})
			if err := a.conclude(c, tool.Error(cutCallText), &out); err != nil {
				return true, nil, err
			}
		}
		if *continued {
			return true, nil, &StopError{Reason: llm.StopLength}
		}
		*continued = true
		return true, []llm.Message{llm.UserText(continueText)}, nil
	}
	return false, nil, nil
}
