package agentjob

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// Gate is the command gate of a job: its policy in the job's worktree,
// and its Approve hook for the commands the policy holds for a person.
// Every runner judges the agent's commands through it.
func Gate(job Job) gate.Config {
	c := gate.Config{Policy: job.Policy, ReadOnly: job.ReadOnly, Unconfined: job.Project.Agent.Sandbox == board.SandboxOff}
	if job.Workspace != nil {
		c.Policy.Workspace = job.Workspace.Root
	}
	if approve := job.Approve; approve != nil {
		c.Ask = func(ctx context.Context, command string, d policy.Decision) gate.Answer {
			a := approve(ctx, command, d)
			return gate.Answer{Allow: a.Allow, Message: a.Message, EndRun: a.EndRun}
		}
	}
	return c
}
