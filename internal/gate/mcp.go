package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// mcpPrefix starts the names of the tools of MCP servers
// (internal/mcpclient): mcp__<server>__<tool>.
const mcpPrefix = "mcp__"

// maxShownArgs bounds the arguments shown with an MCP call held for a
// person.
const maxShownArgs = 400

// mcpCheck judges a call of an MCP tool as the policy judges the command
// line `<tool name> '<JSON arguments>'`: auto mode runs it; ask and
// read-only modes run it when the server marks the tool read-only or an
// Allow pattern matches (e.g. "mcp__github__create_issue *"), and hold it
// for a person otherwise, who sees the arguments; an Ask pattern holds it
// in every mode.
func (c Config) mcpCheck(t tool.Tool) func(ctx context.Context, args json.RawMessage) *tool.Result {
	ro, _ := t.(tool.ReadOnly)
	readOnly := ro != nil && ro.ReadOnly()
	return func(ctx context.Context, args json.RawMessage) *tool.Result {
		shown := t.Name() + " " + shellQuote(clipArgs(args))
		d := policy.Judge(shown, c.policy())
		if d.Verdict == policy.Ask && readOnly && (d.Rule == "ask-mode" || d.Rule == "read-only-unknown") {
			return nil
		}
		switch d.Verdict {
		case policy.Allow:
			return nil
		case policy.Deny:
			r := tool.Error(Refusal(d) + "\nThe tool did not run. Do the task another way, or say what you need and why.")
			return &r
		}
		d.Reason = "an MCP tool the server does not mark read-only; " + d.Reason
		if c.Ask == nil {
			r := tool.Error(fmt.Sprintf("MCP tool call held for a person's approval (%s): %s: %s\nNo one can approve calls in this run, so it did not run. Do the task another way, or say what you need and why.",
				d.Rule, d.Reason, shown))
			return &r
		}
		ans := c.Ask(ctx, shown, d)
		if ans.Allow {
			return nil
		}
		msg := ans.Message
		if msg == "" {
			msg = fmt.Sprintf("MCP tool call not approved (%s): %s", d.Rule, shown)
		}
		r := tool.Error(msg)
		r.Terminate = ans.EndRun
		return &r
	}
}

func clipArgs(args json.RawMessage) string {
	s := strings.TrimSpace(string(args))
	if len(s) > maxShownArgs {
		s = s[:maxShownArgs] + "…"
	}
	return s
}

// shellQuote quotes s as one word of a POSIX shell line.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
