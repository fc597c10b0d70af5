package gate

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// bashGuard is the bash tool with its command judged first (command).
type bashGuard struct {
	guarded
	c Config
}

// Run implements tool.Tool: a command the policy allowed only because it
// reads, and every command in read-only mode, runs with a context marked
// read-only (executor.ReadOnlyContext), so the sandbox runs it where the
// workspace cannot be written.
func (g *bashGuard) Run(ctx context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error) {
	ctx, r := g.c.command(ctx, args)
	if r != nil {
		return *r, nil
	}
	return g.Tool.Run(ctx, args, update)
}

// command judges a bash call's command: a nil result lets it run, with
// the returned context.
func (c Config) command(ctx context.Context, args json.RawMessage) (context.Context, *tool.Result) {
	var a struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		// A command that cannot be read cannot be judged: it never runs.
		r := tool.Errorf("invalid arguments for bash: %v", err)
		return ctx, &r
	}
	d := c.judge(a.Command)
	if !c.Unconfined && (d.Rule == policy.ReadOnlyRule || c.readOnly()) {
		ctx = executor.ReadOnlyContext(ctx)
	}
	switch d.Verdict {
	case policy.Allow:
		return ctx, nil
	case policy.Deny:
		r := tool.Error(Refusal(d) + "\nThe command did not run. Do not try to get around the rule; do the task another way, or say what you need and why.")
		return ctx, &r
	}
	if c.Ask == nil {
		r := tool.Error(fmt.Sprintf("Command held for a person's approval (%s): %s: %s\nNo one can approve commands in this run, so it did not run. Do the task another way, or say what you need and why.",
			d.Rule, d.Reason, d.Command))
		return ctx, &r
	}
	ans := c.Ask(ctx, a.Command, d)
	if ans.Allow {
		return ctx, nil
	}
	msg := ans.Message
	if msg == "" {
		msg = fmt.Sprintf("Command not approved (%s): %s: %s", d.Rule, d.Reason, d.Command)
	}
	r := tool.Error(msg)
	r.Terminate = ans.EndRun
	return ctx, &r
}

// Refusal is the first line of the result of a denied command: "Command
// refused by the policy (rule): reason: command".
func Refusal(d policy.Decision) string {
	s := fmt.Sprintf("Command refused by the policy (%s): %s", d.Rule, d.Reason)
	if d.Command != "" {
		s += ": " + d.Command
	}
	return s
}

// SandboxOffRule is the rule of a command held for a person because only
// the sandbox's read-only mount would have let it run unasked, and the
// project's sandbox is off (Config.Unconfined).
const SandboxOffRule = "sandbox-off"

// judge is the policy's decision on command, with Config.Unconfined's
// change: an allowed command that would run read-only is held instead.
func (c Config) judge(command string) policy.Decision {
	d := policy.Judge(command, c.policy())
	if !c.Unconfined || d.Verdict != policy.Allow || (d.Rule != policy.ReadOnlyRule && !c.readOnly()) {
		return d
	}
	why := "it only reads"
	if c.readOnly() {
		why = "this run must not write the worktree"
	}
	return policy.Decision{Verdict: policy.Ask, Rule: SandboxOffRule, Command: d.Command,
		Reason: "the project's sandbox is off, so no read-only mount holds this command to reading (" + why + "); a person approves it, or set the sandbox to required"}
}

// readOnlyRefusal refuses a write or edit call in read-only mode.
func readOnlyRefusal(context.Context, json.RawMessage) *tool.Result {
	r := tool.Error("The project is read-only (research and plan only): files cannot be written or edited. Read and search the code, and write your findings or plan in your answer.")
	return &r
}

// researchRefusal refuses a write or edit call in a read-only run of a
// project that is not read-only: research before a person approved the
// plan.
func researchRefusal(context.Context, json.RawMessage) *tool.Result {
	r := tool.Error("This run researches the ticket before a person approves the plan: files cannot be written or edited, and commands run with the worktree read-only. Read and search the code, and save your plan with ticket_plan.")
	return &r
}
