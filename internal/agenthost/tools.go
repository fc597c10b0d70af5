package agenthost

import (
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// SkillsPrefix is how the model names the files of the user's skills
// directory, which lies outside the workspace; read calls under it are
// served from that directory.
const SkillsPrefix = "~/.bonsai/skills/"

// CodingTools returns the names of the coding tools of docs/design.md
// (§6), in order.
func CodingTools() []string {
	return []string{"read", "write", "edit", "bash", "grep", "find", "ls"}
}

// Tools returns the named coding tools working through ws, in the order
// of names. skills, when not nil, serves read calls under SkillsPrefix.
func Tools(ws, skills executor.Executor, names []string) []tool.Tool {
	all := tools.New(ws, tools.Options{Skills: skills, SkillsPrefix: SkillsPrefix})
	var out []tool.Tool
	for _, n := range names {
		if t := tools.Lookup(all, n); t != nil {
			out = append(out, t)
		}
	}
	return out
}
