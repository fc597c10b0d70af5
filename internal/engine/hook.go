package engine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// hookPath is where the board server judges an engine's commands before
// they run (Claude Code's PreToolUse HTTP hook, OpenCode's plugin, Codex's
// hook program).
const hookPath = "/hook/pretooluse"

// judges are the engine tools the policy judges before they run, by the
// name the engines' hooks give them, each the job's gate around a
// stand-in: a call returns commandAllowed when the policy lets it run,
// else the refusal the model reads (Terminate set when it is held for a
// person and the ticket now waits).
type judges map[string]tool.Tool

// The engine tools judged: every engine's shell tool, and Codex's
// apply_patch (a tool of its own for some models), an edit like
// Bonsai's: refused in read-only runs.
const (
	hookBash       = "Bash"
	hookApplyPatch = "apply_patch"
)

// commandJudges returns the job's judges.
func commandJudges(job agentjob.Job) judges {
	g := gate.Wrap([]tool.Tool{allowed{"bash"}, allowed{"edit"}}, agentjob.Gate(job))
	return judges{hookBash: afterLimit(job, g[0]), hookApplyPatch: afterLimit(job, g[1])}
}

// commandAllowed is allowed's result.
const commandAllowed = "allowed"

// allowed stands for an engine's tool behind the gate, as the Bonsai tool
// of the same name: the gate judges the call, and this runs nothing.
type allowed struct{ name string }

func (a allowed) Name() string        { return a.name }
func (a allowed) Description() string { return "an engine's tool, judged by the policy as " + a.name }
func (allowed) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)
}
func (allowed) Run(context.Context, json.RawMessage, func(tool.Result)) (tool.Result, error) {
	return tool.Text(commandAllowed), nil
}

// preToolUse answers Claude Code's PreToolUse hook for its Bash tool:
// nothing for a command the policy allows (the engine's own permissions
// then apply), a deny with the policy's words for one it refuses or a
// person did not approve.
func (b *boardServer) preToolUse(judge judges) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Event string          `json:"hook_event_name"`
			Tool  string          `json:"tool_name"`
			Input json.RawMessage `json:"tool_input"`
			// Call is the engine's id of the call, sent by OpenCode's
			// plugin, whose output shows a call only once it finished.
			Call string `json:"bonsai_call_id"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 4<<20)).Decode(&in); err != nil {
			http.Error(w, "not a hook input: "+err.Error(), http.StatusBadRequest)
			return
		}
		answer := b.decide(r.Context(), judge, in.Tool, in.Input)
		if c := commandOf(in.Input); c != "" && string(answer) == "{}" && judge[in.Tool] != nil {
			b.ran.Store(&c)
		}
		if f := b.started.Load(); f != nil && in.Call != "" && string(answer) == "{}" {
			// The command runs now: shown until its result comes.
			(*f)(llm.ToolCall(in.Call, "bash", in.Input))
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}
}

// decide is the PreToolUse hook's answer for a call of tool with input:
// {} for a call the policy allows (or of a tool it does not judge), else
// a deny carrying the policy's words. A call held for a person also ends
// the run.
func (b *boardServer) decide(ctx context.Context, judge judges, toolName string, input json.RawMessage) []byte {
	j := judge[toolName]
	if j == nil {
		return []byte("{}")
	}
	out, err := j.Run(ctx, input, nil)
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
