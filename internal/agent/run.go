package agent

import (
	"context"
	"errors"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Prompt delivers msgs (usually one user message) and runs turns until the
// model stops asking for tools and no message is queued, or another end
// condition is met. Cancelling ctx aborts the run: the stream ends with
// stop reason "aborted" and running tools are cancelled. With no msgs and
// nothing queued, the agent continues from the session as it stands (a
// resumed session whose last message is a user message or tool result).
func (a *Agent) Prompt(ctx context.Context, msgs ...llm.Message) Result {
	if !a.start() {
		return Result{Reason: EndError, Detail: ErrBusy.Error(), Err: ErrBusy}
	}
	stopped := false
	defer func() {
		if !stopped { // a panic in the loop
			a.stop()
		}
	}()
	if !a.cfg.Deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, a.cfg.Deadline, errDeadline)
		defer cancel()
	}
	a.emit(Event{Type: EventAgentStart})
	res := a.loop(ctx, append(msgs, a.takeSteer()...))
	// Idle before agent_end, so whoever reacts to it can prompt again.
	a.stop()
	stopped = true
	a.emit(Event{Type: EventAgentEnd, Run: &res})
	return res
}

func (a *Agent) loop(ctx context.Context, pending []llm.Message) (res Result) {
	// The run's usage includes compaction summaries, so it is read from
	// the agent's total rather than summed from the turns.
	start := a.Usage()
	defer func() { res.Usage = since(a.Usage(), start) }()
	fail := func(err error) Result {
		res.Reason, res.Err, res.Detail = EndError, err, err.Error()
		return res
	}
	if len(pending) == 0 {
		pending = a.takeFollowUp()
	}
	if len(pending) == 0 && !a.resumable() {
		return fail(ErrNothingToSend)
	}
	var br breaker
	continued := false // asked the model once to continue a cut answer
	for {
		if ctx.Err() != nil {
			res.Reason, res.Detail = ended(ctx), context.Cause(ctx).Error()
			return res
		}
		if a.overTurns(res.Turns) {
			res.Reason, res.Detail = EndMaxTurns, "the maximum number of turns was reached"
			return res
		}
		if a.overBudget(since(a.Usage(), start)) {
			res.Reason, res.Detail = EndBudget, "the budget was used up"
			return res
		}
		res.Turns++
		a.emit(Event{Type: EventTurnStart, Turn: res.Turns})
		for _, m := range pending {
			if err := a.deliver(m); err != nil {
				return fail(err)
			}
		}
		pending = nil

		r, err := a.respond(ctx)
		if err != nil {
			return fail(err)
		}
		msg := r.msg
		res.Final = &msg
		if r.err != nil {
			a.emit(Event{Type: EventTurnEnd, Turn: res.Turns, Message: &msg})
			if ctx.Err() != nil {
				res.Reason, res.Detail = ended(ctx), context.Cause(ctx).Error()
				return res
			}
			return fail(r.err)
		}

		if handled, next, err := a.stopped(msg, &continued); handled {
			a.emit(Event{Type: EventTurnEnd, Turn: res.Turns, Message: &msg})
			if err != nil {
				return fail(err)
			}
			pending = append(next, a.takeSteer()...)
			continue
		}

		out, err := a.dispatch(ctx, msg, &br)
		a.emit(Event{Type: EventTurnEnd, Turn: res.Turns, Message: &msg, ToolResults: out.results})
		switch {
		case err != nil:
			return fail(err)
		case ctx.Err() != nil:
			res.Reason, res.Detail = ended(ctx), context.Cause(ctx).Error()
			return res
		case out.tripped != "":
			res.Reason, res.Detail = EndNoProgress, out.tripped
			return res
		case out.terminate:
			res.Reason, res.Detail = EndStopped, "a tool ended the run"
			return res
		}
		if pending = a.takeSteer(); len(pending) > 0 {
			continue
		}
		if len(msg.ToolCalls()) > 0 {
			continue
		}
		if pending = a.takeFollowUp(); len(pending) > 0 {
			continue
		}
		res.Reason = EndStop
		return res
	}
}

// ErrNothingToSend means Prompt got no message and the conversation does
// not end with one the model should answer.
var ErrNothingToSend = errors.New("nothing to send: give a message or resume a conversation that ends with a user message or tool result")

// resumable reports whether the context ends with a message the model
// has not answered yet.
func (a *Agent) resumable() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := len(a.messages) - 1; i >= 0; i-- {
		m := a.messages[i]
		if !usable(m) {
			continue
		}
		return m.Role == llm.RoleUser || m.Role == llm.RoleToolResult
	}
	return false
}

// since returns the usage between two totals.
func since(now, start llm.Usage) llm.Usage {
	return llm.Usage{Input: now.Input - start.Input, Output: now.Output - start.Output,
		CacheRead: now.CacheRead - start.CacheRead, CacheWrite: now.CacheWrite - start.CacheWrite,
		Reasoning: now.Reasoning - start.Reasoning, Cost: now.Cost - start.Cost}
}

// respond compacts when the context is near the window, streams one
// response, and on a context overflow before any content compacts once
// and retries once. It records the message; the error is for session
// failures only (the model's failure is in the response).
func (a *Agent) respond(ctx context.Context) (response, error) {
	compacted := false
	if a.needsCompaction() {
		// A failed compaction is reported by its event; the request may
		// still fit.
		compacted = a.compact(ctx) == nil
	}
	r := a.stream(ctx)
	if r.err != nil && !r.started && llm.IsContextOverflow(r.err) && !compacted && ctx.Err() == nil {
		if a.compact(ctx) == nil {
			r = a.stream(ctx)
		}
	}
	return r, a.finish(&r)
}
