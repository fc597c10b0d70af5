package agenthost

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/executor"
)

// Prompt is what a system prompt is built from.
type Prompt struct {
	// Workspace reads AGENTS.md or CLAUDE.md; nil reads none.
	Workspace executor.Executor
	// Root is the workspace's host path, where .bonsai/skills is looked
	// for; empty means none.
	Root string
	// Name is the working directory as the model sees it (a directory's
	// base name, a project's slug), never a host path.
	Name string
	// UserSkills is the user's skills directory; empty means none.
	UserSkills string
	// Tools names every tool offered, in order.
	Tools []string
	// Sections are added after the project's instructions and skills.
	Sections []string
	// Replace, when not empty, is the whole system prompt in place of the
	// built one (`bonsai run --system-prompt`): the project's instructions
	// and skills are not read; Sections still follow it.
	Replace string
	// MaxFile, when not 0, refuses a workspace file over this many bytes
	// before reading it (see CappedReader).
	MaxFile int64
	// Date is today's date.
	Date time.Time
}

// Render returns the system prompt and the problems found on the way
// (an unreadable AGENTS.md, a malformed skill) as warnings.
func (p Prompt) Render(ctx context.Context) (string, []string) {
	if p.Replace != "" {
		return strings.Join(append([]string{p.Replace}, p.Sections...), "\n\n"), nil
	}
	skills, warnings := Skills(p.UserSkills, p.Root)
	var reader agent.FileReader
	switch {
	case p.Workspace == nil:
	case p.MaxFile > 0:
		reader = CappedReader(p.Workspace, p.MaxFile)
	default:
		reader = p.Workspace
	}
	prompt, w := agent.SystemPrompt(ctx, agent.PromptConfig{
		Workspace: reader, Cwd: p.Name, Date: p.Date, Tools: p.Tools, Skills: skills, Sections: p.Sections,
	})
	return prompt, append(warnings, w...)
}

// CappedReader reads the files of ex, refusing one over max bytes before
// reading it: an executor reads a file whole, and an agent's
// `truncate -s 20G AGENTS.md` would make every later prompt run out of
// memory.
func CappedReader(ex executor.Executor, max int64) agent.FileReader {
	return cappedReader{ex: ex, max: max}
}

type cappedReader struct {
	ex  executor.Executor
	max int64
}

// ReadFile implements agent.FileReader.
func (c cappedReader) ReadFile(ctx context.Context, name string) ([]byte, error) {
	st, err := c.ex.Stat(ctx, name)
	if err != nil {
		return nil, err
	}
	if st.Size > c.max {
		return nil, fmt.Errorf("%s is %d MiB, over the %d MiB a prompt file may have", name, st.Size>>20, c.max>>20)
	}
	return c.ex.ReadFile(ctx, name)
}
