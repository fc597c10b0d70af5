// Package agenthost assembles Bonsai's agent for one workspace: the
// session (open, resume, fork), the coding tools with the user's skills
// served under SkillsPrefix, the user's and the repository's skills, the
// system prompt with the workspace's AGENTS.md or CLAUDE.md, the model and
// the agent itself. `bonsai run` and the heartbeat's in-process runner
// both build their agent here; neither constructs an executor: the caller
// hands in the workspace's and a function that opens a directory.
package agenthost
