// Package engine runs external agent CLIs (Claude Code, OpenCode, Codex)
// as agentjob.AgentRunners for the heartbeat: the CLI starts through the ticket
// worktree's executor with the brief as its prompt and Bonsai's ticket
// rules as an appended system prompt, its streamed JSON events are
// normalised into the ticket's session transcript as they arrive, its
// vendor session is resumed across beats, and the ticket's board tools
// reach it over MCP (internal/boardmcp) on a loopback endpoint the run
// serves and closes. docs/engines.md describes each CLI's wire.
package engine
