package agentjob_test

import (
	"context"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// TestGate puts the job's policy in its worktree and hands the commands
// the policy holds to the job's Approve, answer for answer.
func TestGate(t *testing.T) {
	t.Parallel()
	var asked string
	job := agentjob.Job{
		Brief:     agentjob.Brief{Project: board.Project{Agent: board.AgentSettings{Sandbox: board.SandboxOff}}},
		Workspace: &workspace.Workspace{Root: "/work/tree"},
		Policy:    policy.Config{Mode: policy.Mode("default")},
		ReadOnly:  true,
		Approve: func(_ context.Context, command string, d policy.Decision) agentjob.ApprovalAnswer {
			asked = command + " (" + d.Rule + ")"
			return agentjob.ApprovalAnswer{Message: "wait", EndRun: true}
		},
	}
	c := agentjob.Gate(job)
	if c.Policy.Workspace != "/work/tree" || !c.ReadOnly || !c.Unconfined {
		t.Fatalf("Gate = %+v, want the worktree's policy, read-only, unconfined (sandbox off)", c)
	}
	a := c.Ask(context.Background(), "git push", policy.Decision{Rule: "ask:git push"})
	if asked != "git push (ask:git push)" || a.Allow || a.Message != "wait" || !a.EndRun {
		t.Fatalf("Ask = %+v after asking %q, want Approve's answer", a, asked)
	}
	if agentjob.Gate(agentjob.Job{}).Ask != nil {
		t.Fatal("a job without Approve has an Ask: nobody can be asked, so held commands must be refused")
	}
}

// TestUsageOf carries every kind of token and the cost across.
func TestUsageOf(t *testing.T) {
	t.Parallel()
	got := agentjob.UsageOf(llm.Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, Reasoning: 5, Cost: 0.5})
	want := board.Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4, ReasoningTokens: 5, CostUSD: 0.5}
	if got != want {
		t.Fatalf("UsageOf = %+v, want %+v", got, want)
	}
}
