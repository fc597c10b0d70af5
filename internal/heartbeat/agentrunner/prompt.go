package agentrunner

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/agenthost"
	"github.com/bonsai-run/bonsai/internal/agentjob"
)

// Prompt is how a job's system prompt is built (docs/design.md §8 step
// 4): the agent's base prompt and tool guidance, the project's AGENTS.md or
// CLAUDE.md, the skills of the user's skills directory and of the
// repository's .bonsai/skills, then the brief's sections (agentjob.Sections:
// the rules of ticket work, the persona, the ticket). Tools names the
// tools offered besides the job's ticket tools.
func Prompt(ctx context.Context, job agentjob.Job, tools []string) agenthost.Prompt {
	p := agenthost.Prompt{Name: job.Project.Slug, UserSkills: job.Skills, MaxFile: agentjob.MaxPromptFile, Date: job.Now,
		Tools: append(append([]string(nil), tools...), agenthost.Names(job.Tools)...)}
	if ws := job.Workspace; ws != nil {
		p.Workspace, p.Root = ws.Exec, ws.Root
	}
	p.Sections = agentjob.Sections(ctx, job)
	return p
}

// SystemPrompt renders the system prompt of a job whose agent has the
// coding tools and the job's ticket tools.
func SystemPrompt(ctx context.Context, job agentjob.Job) string {
	s, _ := Prompt(ctx, job, agenthost.CodingTools()).Render(ctx)
	return s
}
