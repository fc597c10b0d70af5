package cli

import (
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// defaultTools are the coding tools of docs/design.md (§6), in order.
var defaultTools = []string{"read", "write", "edit", "bash", "grep", "find", "ls"}

// skillsPrefix is how the model names files of the user's skills
// directory, which lies outside the workspace.
const skillsPrefix = "~/.bonsai/skills/"

// parseTools checks a --tools list against the known tools.
func parseTools(list string) ([]string, error) {
	var names []string
	for n := range strings.SplitSeq(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(defaultTools, n) {
			return nil, usagef("--tools: unknown tool %q (known: %s)", n, strings.Join(defaultTools, ","))
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// codingTools returns the named tools working through ex. skills, when
// not nil, serves read calls under skillsPrefix.
func codingTools(ex executor.Executor, names []string, skills executor.Executor) []tool.Tool {
	all := tools.New(ex, tools.Options{Skills: skills, SkillsPrefix: skillsPrefix})
	var out []tool.Tool
	for _, n := range names {
		if t := tools.Lookup(all, n); t != nil {
			out = append(out, t)
		}
	}
	return out
}
