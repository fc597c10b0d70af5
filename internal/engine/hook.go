package engine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// hookPath is where the board server judges an engine's commands before
// they run (Claude Code's PreToolUse HTTP hook).
const hookPath = "/hook/pretooluse"

// commandJudge returns the job's command gate as a tool: a call with
// {"command": …} returns commandAllowed when the project's policy lets
// the command run, else the refusal the model reads (Terminate set when
// the command is held for a person and the ticket now waits).
func commandJudge(job heartbeat.Job) tool.Tool {
	return gate.Wrap([]tool.Tool{allowedBash{}}, agentrunner.Gate(job))[0]
}

// commandAllowed is allowedBash's result.
const commandAllowed = "allowed"

// allowedBash stands for the engine's shell tool behind the gate: the gate
// judges the command, and this runs nothing.
type allowedBash struct{}

func (allowedBash) Name() string        { return "bash" }
func (allowedBash) Description() string { return "the engine's shell tool, judged by the policy" }
func (allowedBash) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)
}
func (allowedBash) Run(context.Context, json.RawMessage, func(tool.Result)) (tool.Result, error) {
	return tool.Text(commandAllowed), nil
}

// preToolUse answers Claude Code's PreToolUse hook for its Bash tool:
// nothing for a command the policy allows (the engine's own permissions
// then apply), a deny with the policy's words for one it refuses or a
// person did not approve.
func (b *boardServer) preToolUse(judge tool.Tool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Event string          `json:"hook_event_name"`
			Tool  string          `json:"tool_name"`
			Input json.RawMessage `json:"tool_input"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 4<<20)).Decode(&in); err != nil {
			http.Error(w, "not a hook input: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b.decide(r.Context(), judge, in.Tool, in.Input))
	}
}

// decide is the PreToolUse hook's answer for a call of tool with input:
// {} for a command the policy allows (or a tool that is not the shell),
// else a deny carrying the policy's words. A command held for a person
// also ends the run.
func (b *boardServer) decide(ctx context.Context, judge tool.Tool, toolName string, input json.RawMessage) []byte {
	if toolName != "Bash" {
		return []byte("{}")
	}
	out, err := judge.Run(ctx, input, nil)
	if err == nil && !out.IsError && out.Text() == commandAllowed {
		return []byte("{}")
	}
	reason := out.Text()
	if err != nil {
		reason = "the command could not be judged: " + err.Error()
	}
	if out.Terminate {
		b.terminate.Store(true)
	}
	deny, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
	return deny
}

// policyToolName is the board tool an engine's hook calls over MCP to
// have a command judged (Codex's mcp_tool hooks, which cannot post to a
// URL).
const policyToolName = "command_policy"

// policyTool is that tool: its text result is the hook's answer (decide).
// The model sees it too; calling it judges a command as running it would.
type policyTool struct {
	b     *boardServer
	judge tool.Tool
}

func (policyTool) Name() string { return policyToolName }
func (policyTool) Description() string {
	return "Judges a shell command by the project's command policy. The CLI's hook calls it before every command; you never need to."
}
func (policyTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"tool_name":{"type":"string"},"command":{"type":"string"}},"required":["tool_name","command"]}`)
}

// Run implements tool.Tool.
func (t policyTool) Run(ctx context.Context, args json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	var in struct {
		Tool    string `json:"tool_name"`
		Command string `json:"command"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tool.Error("command_policy: " + err.Error()), nil
	}
	cmd, _ := json.Marshal(map[string]string{"command": in.Command})
	return tool.Text(string(t.b.decide(ctx, t.judge, in.Tool, cmd))), nil
}
