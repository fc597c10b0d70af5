package agent_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/bonsai-run/bonsai/internal/agent"
)

// mapReader serves files from a map; errs makes a path fail.
type mapReader struct {
	files map[string]string
	errs  map[string]error
}

func (m mapReader) ReadFile(_ context.Context, p string) ([]byte, error) {
	if err, ok := m.errs[p]; ok {
		return nil, err
	}
	if s, ok := m.files[p]; ok {
		return []byte(s), nil
	}
	return nil, fs.ErrNotExist
}

func TestSystemPrompt(t *testing.T) {
	t.Parallel()
	date := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	skills := fstest.MapFS{
		"deploy/SKILL.md": {Data: []byte("---\nname: deploy\ndescription: \"How to ship a release\"\n---\nSteps…")},
		"broken/SKILL.md": {Data: []byte("no frontmatter")},
		"notes.txt":       {Data: []byte("ignored")},
	}
	sk, warns := agent.LoadSkills(skills, ".bonsai/skills")
	if len(sk) != 1 || sk[0] != (agent.Skill{Name: "deploy", Description: "How to ship a release", Path: ".bonsai/skills/deploy/SKILL.md"}) {
		t.Fatalf("skills = %+v", sk)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "broken/SKILL.md") {
		t.Errorf("skill warnings = %q", warns)
	}

	p, warns := agent.SystemPrompt(context.Background(), agent.PromptConfig{
		Workspace: mapReader{files: map[string]string{"AGENTS.md": "Use tabs.", "CLAUDE.md": "ignored"}},
		Cwd:       "bonsai", Date: date, Tools: []string{"read", "edit"}, Skills: sk,
		Sections: []string{"# Ticket\n\n#12 Fix it"},
	})
	if len(warns) != 0 {
		t.Errorf("warnings = %q", warns)
	}
	for _, want := range []string{"You are Bonsai", "Tool use:", "# Project instructions (AGENTS.md)\n\nUse tabs.",
		"- deploy: How to ship a release (.bonsai/skills/deploy/SKILL.md)", "# Ticket\n\n#12 Fix it",
		"Today is Wednesday 4 March 2026. The working directory is the workspace root, bonsai."} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "ignored") {
		t.Error("CLAUDE.md used although AGENTS.md exists")
	}

	p, _ = agent.SystemPrompt(context.Background(), agent.PromptConfig{Workspace: mapReader{files: map[string]string{"CLAUDE.md": "Claude rules."}}})
	if !strings.Contains(p, "(CLAUDE.md)\n\nClaude rules.") || strings.Contains(p, "Tool use:") {
		t.Errorf("CLAUDE.md fallback:\n%s", p)
	}

	p, warns = agent.SystemPrompt(context.Background(), agent.PromptConfig{Workspace: mapReader{errs: map[string]error{"AGENTS.md": errors.New("permission denied")}}})
	if len(warns) != 1 || !strings.Contains(warns[0], "AGENTS.md left out of the system prompt: permission denied") {
		t.Errorf("warnings = %q", warns)
	}
	if strings.Contains(p, "Project instructions") {
		t.Error("unreadable AGENTS.md in prompt")
	}
}
