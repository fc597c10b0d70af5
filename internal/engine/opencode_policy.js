// Bonsai's command policy for OpenCode (docs/engines.md): the run's board
// server judges each command of the bash tool before it runs, as it
// judges Bonsai's own agent's. A refusal, or a command held for a person,
// fails the tool with the policy's words; a server that cannot answer
// fails it too: nothing runs unjudged.
const hook = __HOOK__;
const token = __TOKEN__;

export const BonsaiPolicy = async () => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool !== "bash") return;
    const command = String((output.args && output.args.command) || "");
    let res;
    try {
      res = await fetch(hook, {
        method: "POST",
        headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" },
        body: JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, bonsai_call_id: String(input.callID || "") }),
      });
    } catch (e) {
      throw new Error("Bonsai's command policy could not be asked, so the command did not run: " + e);
    }
    if (!res.ok) throw new Error("Bonsai's command policy could not judge the command (HTTP " + res.status + "), so it did not run");
    const d = (await res.json()).hookSpecificOutput;
    if (d && d.permissionDecision === "deny") throw new Error(d.permissionDecisionReason);
  },
});
