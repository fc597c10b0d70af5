package agent

import (
	"context"
	"sync"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// Texts of the results of calls that did not run.
const (
	skippedSteer   = "Skipped due to queued user message."
	skippedAbort   = "Skipped: the run was aborted."
	skippedStopped = "Skipped: the run is ending."
)

// turnOutcome is what running the tool calls of one turn produced.
type turnOutcome struct {
	results   []llm.Message
	terminate bool   // a tool asked to end the run
	tripped   string // the breaker's reason, if it tripped
}

// dispatch runs the tool calls of an assistant message in order, the
// consecutive read-only ones in parallel, and records a result for every
// call. Once a steering message is queued, the context is done, the breaker
// trips or a tool ends the run, the remaining calls are answered without
// running.
func (a *Agent) dispatch(ctx context.Context, msg llm.Message, br *breaker) (turnOutcome, error) {
	calls := msg.ToolCalls()
	var out turnOutcome
	for i := 0; i < len(calls); {
		if skip := a.skipReason(ctx, out); skip != "" {
			for _, c := range calls[i:] {
				a.emit(Event{Type: EventToolExecutionStart, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments})
				if err := a.conclude(c, tool.Error(skip), &out); err != nil {
					return out, err
				}
			}
			break
		}
		n := a.readOnlyRun(calls[i:])
		group := calls[i : i+n]
		for _, c := range group {
			a.emit(Event{Type: EventToolExecutionStart, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments})
		}
		results := a.runGroup(ctx, group)
		for k, c := range group {
			if r := br.observe(c, results[k]); r != "" && out.tripped == "" {
				out.tripped = r
			}
			if results[k].Terminate {
				out.terminate = true
			}
			if err := a.conclude(c, results[k], &out); err != nil {
				return out, err
			}
		}
		i += n
	}
	return out, nil
}

func (a *Agent) skipReason(ctx context.Context, out turnOutcome) string {
	switch {
	case ctx.Err() != nil:
		return skippedAbort
	case out.tripped != "" || out.terminate:
		return skippedStopped
	case a.steering():
		return skippedSteer
	}
	return ""
}

// readOnlyRun returns how many calls from the first one run together: the
// run of consecutive read-only calls, or 1.
func (a *Agent) readOnlyRun(calls []llm.Part) int {
	n := 0
	for _, c := range calls {
		e, ok := a.tools[c.Name]
		if !ok || !e.ReadOnly() {
			break
		}
		n++
	}
	return max(n, 1)
}

// runGroup runs the calls, in parallel when there are several, and
// returns their results in call order.
func (a *Agent) runGroup(ctx context.Context, calls []llm.Part) []tool.Result {
	results := make([]tool.Result, len(calls))
	if len(calls) == 1 {
		results[0] = a.execute(ctx, calls[0])
		return results
	}
	var wg sync.WaitGroup
	for k, c := range calls {
		wg.Go(func() { results[k] = a.execute(ctx, c) })
	}
	wg.Wait()
	return results
}

// conclude emits tool_execution_end and records the result message.
func (a *Agent) conclude(c llm.Part, res tool.Result, out *turnOutcome) error {
	a.emit(Event{Type: EventToolExecutionEnd, ToolCallID: c.ID, ToolName: c.Name, ToolResult: &res})
	m := resultMessage(res, c)
	a.emit(Event{Type: EventMessageStart, Message: &m})
	if err := a.record(m, res.DetailsJSON()); err != nil {
		return err
	}
	a.emit(Event{Type: EventMessageEnd, Message: &m})
	out.results = append(out.results, m)
	return nil
}
