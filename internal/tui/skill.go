package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// cmdSkill sends a prompt asking the agent to use the named skill: to
// read its SKILL.md first and follow it, with text as the task.
func (m *Model) cmdSkill(name, text string) tea.Cmd {
	var names []string
	for _, s := range m.opts.Skills {
		names = append(names, s.Name)
		if s.Name != name {
			continue
		}
		prompt := fmt.Sprintf("Use the skill %q: read %s first and follow it.", s.Name, s.Path)
		if text != "" {
			prompt += "\n\n" + text
		}
		if m.running {
			m.tr.add(kindError, "/skill waits for the turn to end (Esc aborts it)")
			return nil
		}
		return m.start(prompt)
	}
	known := "none"
	if len(names) > 0 {
		known = strings.Join(names, ", ")
	}
	m.tr.add(kindError, fmt.Sprintf("no skill %q (known: %s)", name, known))
	return nil
}
