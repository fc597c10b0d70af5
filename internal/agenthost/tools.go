package agenthost

import (
	"slices"

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

// ScreenshotTool names the screenshot tool, which a ticket's agent is
// offered where Chromium is installed (AgentTools).
const ScreenshotTool = "screenshot"

// AgentTools returns the names of the tools of a ticket's agent: the
// coding tools, and the screenshot tool when Chromium is installed
// (tools.FindChromium).
func AgentTools() []string {
	names := CodingTools()
	if tools.FindChromium(nil) != "" {
		names = append(names, ScreenshotTool)
	}
	return names
}

// Tools returns the named coding tools working through ws, in the order
// of names. skills, when not nil, serves read calls under SkillsPrefix.
// The screenshot tool is among them when names has it and Chromium is
// installed.
func Tools(ws, skills executor.Executor, names []string) []tool.Tool {
	opts := tools.Options{Skills: skills, SkillsPrefix: SkillsPrefix}
	if slices.Contains(names, ScreenshotTool) {
		opts.Chromium = tools.FindChromium(nil)
	}
	all := tools.New(ws, opts)
	var out []tool.Tool
	for _, n := range names {
		if t := tools.Lookup(all, n); t != nil {
			out = append(out, t)
		}
	}
	return out
}
