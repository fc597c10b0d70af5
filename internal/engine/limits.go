package engine

import (
	"context"
	"encoding/json"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// An engine run ends at the first sandbox limit its commands meet, as
// Bonsai's own loop's does (agentrunner/limit.go): the CLI runs as one
// command of the sandbox, so after each message it streams (a command's
// result among them) the runner asks the sandbox which limits were met
// so far (executor.LimitReporter), and stops the CLI at the first. A
// limit the sandbox notes only when the CLI ends (a full /tmp, a file
// too large, the worktree's growth, which also stops it) is recorded the
// same way. The run is an error naming the limit and how to raise it.

// watchLimits records the command of an assistant message's tool call,
// and ends the run (cancel) when the sandbox met a limit.
func (res *result) watchLimits(job agentjob.Job, m llm.Message, cancel context.CancelFunc) {
	for _, p := range m.Content {
		if p.Type != llm.PartToolCall {
			continue
		}
		if c := commandOf(p.Arguments); c != "" {
			res.command = c
		}
	}
	if res.limit != "" || job.Workspace == nil {
		return
	}
	lr, ok := job.Workspace.Exec.(executor.LimitReporter)
	if !ok {
		return
	}
	if note := lr.LimitsMet(); note != "" {
		res.limit = note
		cancel()
	}
}

// limitGuard is a judge that refuses every call once the sandbox met a
// limit: the run is ending, and the CLI must not start another command
// before the runner stops it.
type limitGuard struct {
	tool.Tool
	limits executor.LimitReporter
}

// afterLimit returns t guarded by limitGuard when the job's executor
// reports the limits met, else t.
func afterLimit(job agentjob.Job, t tool.Tool) tool.Tool {
	if job.Workspace == nil {
		return t
	}
	if lr, ok := job.Workspace.Exec.(executor.LimitReporter); ok {
		return limitGuard{Tool: t, limits: lr}
	}
	return t
}

// Run implements tool.Tool.
func (g limitGuard) Run(ctx context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error) {
	if note := g.limits.LimitsMet(); note != "" {
		return tool.Error("bonsai: " + note + "\nThis run ends here because a command met a sandbox limit; the command did not run."), nil
	}
	return g.Tool.Run(ctx, args, update)
}

// commandOf returns the command of a shell tool call's arguments: the
// engines' "command" (a string) or Codex's "cmd" (a string or an argv).
func commandOf(args json.RawMessage) string {
	var a struct {
		Command string `json:"command"`
		Cmd     any    `json:"cmd"`
	}
	if json.Unmarshal(args, &a) != nil {
		return ""
	}
	switch c := a.Cmd.(type) {
	case string:
		return c
	case []any:
		if len(c) > 0 {
			b, _ := json.Marshal(c)
			return string(b)
		}
	}
	return a.Command
}
