package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"
)

var (
	//go:embed prompts/base.md
	basePrompt string
	//go:embed prompts/tools.md
	toolsPrompt string
	//go:embed prompts/skills.md
	skillsPrompt string
)

// FileReader reads a file relative to the workspace root; an
// executor.Executor is one.
type FileReader interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
}

// PromptConfig is what the system prompt is assembled from.
type PromptConfig struct {
	// Workspace reads AGENTS.md or CLAUDE.md at the workspace root; nil
	// skips them.
	Workspace FileReader
	// Cwd is the working directory as the model should see it: a display
	// form such as the project's name, never a host path.
	Cwd string
	// Date is today's date in the user's time zone.
	Date time.Time
	// Tools names the tools offered; tool guidance is added when the
	// coding tools are among them.
	Tools []string
	// Skills are listed by name, description and path.
	Skills []Skill
	// Sections are extra Markdown sections appended in order (a ticket, a
	// persona).
	Sections []string
}

// maxContextFile caps the size of AGENTS.md / CLAUDE.md taken into the prompt.
const maxContextFile = 32 << 10

// SystemPrompt assembles the system prompt: base instructions, tool
// guidance, the workspace's AGENTS.md (or else CLAUDE.md), skills, extra
// sections, and the date and working directory. Problems that do not stop
// the run (an unreadable AGENTS.md) are returned as warnings for the user.
func SystemPrompt(ctx context.Context, pc PromptConfig) (string, []string) {
	var (
		b     strings.Builder
		warns []string
	)
	b.WriteString(strings.TrimSpace(basePrompt))
	if slices.Contains(pc.Tools, "read") || slices.Contains(pc.Tools, "edit") {
		b.WriteString("\n\n" + strings.TrimSpace(toolsPrompt))
	}
	if pc.Workspace != nil {
		name, text, err := projectInstructions(ctx, pc.Workspace)
		if err != nil {
			warns = append(warns, err.Error())
		}
		if text != "" {
			fmt.Fprintf(&b, "\n\n# Project instructions (%s)\n\n%s", name, text)
		}
	}
	if len(pc.Skills) > 0 {
		b.WriteString("\n\n# Skills\n\n" + strings.TrimSpace(skillsPrompt) + "\n")
		for _, s := range pc.Skills {
			fmt.Fprintf(&b, "\n- %s: %s (%s)", s.Name, s.Description, s.Path)
		}
	}
	for _, s := range pc.Sections {
		if s = strings.TrimSpace(s); s != "" {
			b.WriteString("\n\n" + s)
		}
	}
	cwd := pc.Cwd
	if cwd == "" {
		cwd = "."
	}
	date := pc.Date
	if date.IsZero() {
		date = time.Now()
	}
	fmt.Fprintf(&b, "\n\nToday is %s. The working directory is the workspace root, %s.", date.Format("Monday 2 January 2006"), cwd)
	return b.String(), warns
}

// projectInstructions returns AGENTS.md, or CLAUDE.md when there is no
// AGENTS.md, capped in size.
func projectInstructions(ctx context.Context, r FileReader) (name, text string, err error) {
	for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
		b, err := r.ReadFile(ctx, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return name, "", fmt.Errorf("%s left out of the system prompt: %v", name, err)
		}
		s := strings.TrimSpace(string(b))
		if len(s) > maxContextFile {
			s = s[:maxContextFile] + "\n[truncated]"
		}
		return name, s, nil
	}
	return "", "", nil
}
