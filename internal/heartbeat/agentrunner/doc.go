// Package agentrunner is the in-process heartbeat.AgentRunner: it runs
// Bonsai's own agent loop (internal/agent) on a ticket, with the coding
// tools working in the ticket's worktree and the ticket tools, resuming the
// ticket's transcript across beats.
package agentrunner
