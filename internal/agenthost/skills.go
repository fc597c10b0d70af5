package agenthost

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/bonsai-run/bonsai/internal/agent"
)

// Skills loads the skills of the user's skills directory (userDir, empty
// for none), named under SkillsPrefix, then those of the workspace's
// .bonsai/skills (root is the workspace's host path, empty for none). It
// returns the problems found as warnings.
func Skills(userDir, root string) ([]agent.Skill, []string) {
	var skills []agent.Skill
	var warnings []string
	if userDir != "" && isDir(userDir) {
		s, w := agent.LoadSkills(os.DirFS(userDir), strings.TrimSuffix(SkillsPrefix, "/"))
		skills, warnings = append(skills, s...), append(warnings, w...)
	}
	if root != "" {
		s, w := repoSkills(root)
		skills, warnings = append(skills, s...), append(warnings, w...)
	}
	return skills, warnings
}

// repoSkills loads the skills of the workspace's .bonsai/skills without
// following symlinks out of the workspace, neither the directory itself
// nor the SKILL.md files below it: repository contents are untrusted.
func repoSkills(root string) ([]agent.Skill, []string) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil
	}
	defer r.Close()
	sub, err := r.OpenRoot(filepath.Join(".bonsai", "skills"))
	if err != nil {
		return nil, nil
	}
	defer sub.Close()
	return agent.LoadSkills(sub.FS(), ".bonsai/skills")
}

// isDir reports whether path names an existing directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
