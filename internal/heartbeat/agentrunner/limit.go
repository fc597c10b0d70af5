package agentrunner

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// A heartbeat run ends at the first command that meets a sandbox limit
// (docs/heartbeat.md, "A command that meets a sandbox limit"): nobody
// watches the run, and a model that retries a fork bomb or a memory hog
// would otherwise pay for it, and load the machine, until the run's
// deadline. The run is recorded as an error naming the limit; the next
// beat resumes from the transcript, whose last message is the command's
// result, and the same error twice in a row blocks the ticket (guard.go).

// limitEndText is appended to the result of a command that met a limit:
// the model reads it when the next run resumes the transcript.
const limitEndText = "\n\nbonsai: this run ends here because the command met a sandbox limit; the next run goes on from this result. " +
	"Do not run the command again as it is: do the work in smaller steps, or ask a person to raise the limit."

// limitHit records the first command of a run that met a sandbox limit.
type limitHit struct {
	mu      sync.Mutex
	note    string // executor.Exit.Limit of that command
	command string
}

// record keeps the first hit.
func (h *limitHit) record(note, command string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.note == "" {
		h.note, h.command = note, command
	}
}

// Error is the run's error for the recorded hit (agentjob.LimitError),
// "" when there was none.
func (h *limitHit) Error() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return agentjob.LimitError(h.note, h.command)
}

// stopOnLimit returns ts with the bash tool ending the run (Terminate)
// after a command that met a sandbox limit, recorded in hit.
func stopOnLimit(ts []tool.Tool, hit *limitHit) []tool.Tool {
	out := make([]tool.Tool, len(ts))
	for i, t := range ts {
		if t.Name() == "bash" {
			t = &limitStop{Tool: t, hit: hit}
		}
		out[i] = t
	}
	return out
}

// limitStop is a bash tool that ends the run at a sandbox limit.
type limitStop struct {
	tool.Tool
	hit *limitHit
}

var (
	_ tool.ReadOnly  = (*limitStop)(nil)
	_ tool.Validator = (*limitStop)(nil)
)

// Run implements tool.Tool.
func (l *limitStop) Run(ctx context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error) {
	res, err := l.Tool.Run(ctx, args, update)
	note := limitOf(res.Details)
	if err != nil || note == "" {
		return res, err
	}
	var a struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(args, &a)
	l.hit.record(note, a.Command)
	res.Content = append(res.Content, llm.Text(limitEndText))
	res.IsError, res.Terminate = true, true
	return res, nil
}

// limitOf returns the limits a bash result's details name.
func limitOf(details any) string {
	switch d := details.(type) {
	case tools.BashDetails:
		return d.Limit
	case *tools.BashDetails:
		if d != nil {
			return d.Limit
		}
	}
	return ""
}

// ReadOnly implements tool.ReadOnly as the wrapped tool does.
func (l *limitStop) ReadOnly() bool {
	ro, ok := l.Tool.(tool.ReadOnly)
	return ok && ro.ReadOnly()
}

// Validate implements tool.Validator as the wrapped tool does, or by its
// schema when it has no validator of its own.
func (l *limitStop) Validate(args json.RawMessage) error {
	if v, ok := l.Tool.(tool.Validator); ok {
		return v.Validate(args)
	}
	c, err := tool.Check(l.Tool)
	if err != nil {
		return err
	}
	return c.Validate(args)
}
