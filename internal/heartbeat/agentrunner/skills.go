package agentrunner

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// withSkills wraps the read tool among tools so that paths under
// heartbeat.UserSkillsPrefix are read from the user's skills directory,
// which lies outside the worktree. It returns the executor to close after
// the run, nil when there is no such directory.
func withSkills(tools []agent.Tool, dir string) ([]agent.Tool, *local.Executor, error) {
	if dir == "" {
		return tools, nil, nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return tools, nil, nil
	}
	ex, err := local.New(dir, local.Options{})
	if err != nil {
		return nil, nil, err
	}
	var read agent.Tool
	for _, t := range CodingTools(ex) {
		if t.Name() == "read" {
			read = t
		}
	}
	out := make([]agent.Tool, len(tools))
	for i, t := range tools {
		out[i] = t
		if t.Name() == "read" && read != nil {
			out[i] = skillRead{Tool: t, skills: read}
		}
	}
	return out, ex, nil
}

// skillRead is the read tool of the worktree that also reads the user's
// skills.
type skillRead struct {
	agent.Tool
	skills agent.Tool
}

var _ agent.ReadOnly = skillRead{}

// ReadOnly reports true: reading never changes the workspace.
func (s skillRead) ReadOnly() bool { return true }

func (s skillRead) Run(ctx context.Context, args json.RawMessage, update func(agent.ToolResult)) (agent.ToolResult, error) {
	if rel, ok := skillPath(args); ok {
		return s.skills.Run(ctx, rel, update)
	}
	return s.Tool.Run(ctx, args, update)
}

// skillPath rewrites read arguments whose path is under the prefix to a
// path relative to the skills directory.
func skillPath(args json.RawMessage) (json.RawMessage, bool) {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, false
	}
	p, _ := m["path"].(string)
	rest, ok := strings.CutPrefix(p, heartbeat.UserSkillsPrefix)
	if !ok {
		return nil, false
	}
	m["path"] = rest
	b, err := json.Marshal(m)
	return b, err == nil
}
