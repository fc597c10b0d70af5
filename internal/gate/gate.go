package gate

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// Answer is how a command the policy holds for a person is handled now.
type Answer struct {
	// Allow runs the command.
	Allow bool
	// Message, when not allowed, is the tool result the model reads.
	Message string
	// EndRun ends the run after this turn (tool.Result.Terminate): the
	// question was posted and the answer comes later.
	EndRun bool
}

// Asker decides about a command the policy judged Ask. command is the
// whole command line, d the policy's decision.
type Asker func(ctx context.Context, command string, d policy.Decision) Answer

// Config is what the gate judges with.
type Config struct {
	// Policy is the command policy, Workspace set to the workspace root.
	Policy policy.Config
	// Ask decides the commands the policy holds for a person; nil
	// refuses them.
	Ask Asker
	// ReadOnly runs every command read-only and refuses write and edit,
	// as read-only mode does, whatever the policy's mode: a run that
	// promises no writes (research where a person approves the plan).
	ReadOnly bool
	// Unconfined says that commands run where no mount can hold them to
	// reading: the project's sandbox is off. A command the policy allows
	// only because it reads, and every command of a read-only run, is
	// then held for a person instead (rule "sandbox-off"), never run
	// unasked (docs/sandbox.md, "Sandbox off").
	Unconfined bool
	// Mode, when not nil, is the mode in force, read at every call in
	// place of Policy.Mode: `bonsai run`'s /mode changes it while the
	// agent runs. write and edit are then always wrapped, refused while
	// it says read-only.
	Mode func() policy.Mode
}

// mode is the policy mode in force.
func (c Config) mode() policy.Mode {
	if c.Mode != nil {
		return c.Mode()
	}
	return c.Policy.Mode
}

// policy is the policy with the mode in force.
func (c Config) policy() policy.Config {
	p := c.Policy
	p.Mode = c.mode()
	return p
}

// readOnly reports whether the run may not write the workspace.
func (c Config) readOnly() bool {
	return c.ReadOnly || c.mode() == policy.ModeReadOnly
}

// The tools the gate knows by name (internal/tools).
const (
	bashTool  = "bash"
	writeTool = "write"
	editTool  = "edit"
)

// Wrap returns ts with the bash tool judged before it runs (and the
// screenshot tool's serve command, screenshot.go), in
// read-only mode (or a read-only run) write and edit refused, and the tools of MCP servers
// (mcp__<server>__<tool>) judged by the policy (mcp.go). Other tools are
// returned as they are.
func Wrap(ts []tool.Tool, c Config) []tool.Tool {
	out := make([]tool.Tool, len(ts))
	for i, t := range ts {
		switch {
		case t.Name() == bashTool:
			out[i] = &bashGuard{guarded: guarded{Tool: t}, c: c}
		case t.Name() == screenshotTool:
			out[i] = &screenshotGuard{guarded: guarded{Tool: t}, c: c}
		case c.Mode != nil && (t.Name() == writeTool || t.Name() == editTool):
			out[i] = &guarded{Tool: t, check: c.readOnlyNow}
		case c.readOnly() && (t.Name() == writeTool || t.Name() == editTool):
			out[i] = &guarded{Tool: t, check: readOnlyRefusal}
			if c.Policy.Mode != policy.ModeReadOnly {
				out[i] = &guarded{Tool: t, check: researchRefusal}
			}
		case strings.HasPrefix(t.Name(), mcpPrefix):
			out[i] = &guarded{Tool: t, check: c.mcpCheck(t)}
		default:
			out[i] = t
		}
	}
	return out
}

// readOnlyNow refuses a write or edit call while the mode in force is
// read-only (Config.Mode).
func (c Config) readOnlyNow(ctx context.Context, args json.RawMessage) *tool.Result {
	if c.readOnly() {
		return readOnlyRefusal(ctx, args)
	}
	return nil
}

// guarded is a tool whose calls pass check first: a non-nil result is
// returned instead of running the tool.
type guarded struct {
	tool.Tool
	check func(ctx context.Context, args json.RawMessage) *tool.Result
}

var (
	_ tool.ReadOnly  = (*guarded)(nil)
	_ tool.Validator = (*guarded)(nil)
)

// Run implements tool.Tool.
func (g *guarded) Run(ctx context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error) {
	if r := g.check(ctx, args); r != nil {
		return *r, nil
	}
	return g.Tool.Run(ctx, args, update)
}

// ReadOnly implements tool.ReadOnly as the wrapped tool does.
func (g *guarded) ReadOnly() bool {
	ro, ok := g.Tool.(tool.ReadOnly)
	return ok && ro.ReadOnly()
}

// Validate implements tool.Validator as the wrapped tool does, or by its
// schema when it has no validator of its own.
func (g *guarded) Validate(args json.RawMessage) error {
	if v, ok := g.Tool.(tool.Validator); ok {
		return v.Validate(args)
	}
	c, err := tool.Check(g.Tool)
	if err != nil {
		return err
	}
	return c.Validate(args)
}
