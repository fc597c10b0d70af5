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
		if in.Tool != "Bash" {
			_, _ = w.Write([]byte("{}"))
			return
		}
		out, err := judge.Run(r.Context(), in.Input, nil)
		if err == nil && !out.IsError && out.Text() == commandAllowed {
			_, _ = w.Write([]byte("{}"))
			return
		}
		reason := out.Text()
		if err != nil {
			reason = "the command could not be judged: " + err.Error()
		}
		if out.Terminate {
			b.terminate.Store(true)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"hookSpecificOutput": map[string]string{
			"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
	}
}
