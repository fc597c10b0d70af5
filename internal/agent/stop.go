package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// breakerLimit is how many identical failing calls in a row end a run.
const breakerLimit = 3

// breaker counts identical failing tool calls in a row.
type breaker struct {
	key  string
	n    int
	last string
}

// observe records a result and returns a reason when the same call has
// now failed breakerLimit times in a row.
func (b *breaker) observe(c llm.Part, r tool.Result) string {
	if !r.IsError {
		b.key, b.n = "", 0
		return ""
	}
	key := c.Name + "\x00" + string(c.Arguments)
	if key == b.key {
		b.n++
	} else {
		b.key, b.n = key, 1
	}
	if b.n < breakerLimit {
		return ""
	}
	msg := ""
	for _, p := range r.Content {
		if p.Type == llm.PartText {
			msg = p.Text
			break
		}
	}
	return fmt.Sprintf("the same failing call %s %s was made %d times in a row; last error: %s",
		c.Name, clip(string(c.Arguments), 200), b.n, clip(msg, 300))
}

// ended classifies a cancelled run: timeout when the deadline passed,
// aborted otherwise.
func ended(ctx context.Context) EndReason {
	if errors.Is(context.Cause(ctx), errDeadline) {
		return EndTimeout
	}
	return EndAborted
}

// errDeadline is the cause of a run's context ending at Config.Deadline.
var errDeadline = errors.New("run deadline passed")

// overTurns reports whether the run used its turns.
func (a *Agent) overTurns(turns int) bool {
	return a.cfg.MaxTurns > 0 && turns >= a.cfg.MaxTurns
}

// overBudget reports whether the run's cost or tokens reached the budget.
func (a *Agent) overBudget(u llm.Usage) bool {
	return a.cfg.Budget > 0 && u.Cost >= a.cfg.Budget ||
		a.cfg.TokenBudget > 0 && u.Input+u.Output+u.CacheRead+u.CacheWrite >= a.cfg.TokenBudget
}
