package agentrunner

import (
	"os"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// CodingTools returns the seven coding tools working through ws. When
// skills is not nil, read serves the paths under heartbeat.UserSkillsPrefix
// from it.
func CodingTools(ws, skills executor.Executor) []tool.Tool {
	return tools.New(ws, tools.Options{Skills: skills, SkillsPrefix: heartbeat.UserSkillsPrefix})
}

// openSkills opens the user's skills directory, which lies outside the
// worktree. It returns nil when there is no such directory.
func openSkills(dir string) (*local.Executor, error) {
	if dir == "" {
		return nil, nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, nil
	}
	return local.New(dir, local.Options{})
}
