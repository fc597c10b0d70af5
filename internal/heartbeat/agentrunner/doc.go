// Package agentrunner is the in-process agentjob.AgentRunner: it runs
// Bonsai's own agent loop (internal/agent) on a ticket, with the coding
// tools working in the ticket's worktree and the ticket tools, resuming the
// ticket's transcript across beats. While the model streams, the message
// so far goes to a side file next to the transcript (live.go), which the
// web UI follows.
package agentrunner
