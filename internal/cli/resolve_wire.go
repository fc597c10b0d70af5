package cli

import (
	"os"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
)

// programResolvers returns the command policy's program lookup for a
// project's sandbox setting (heartbeat.Options.ResolveProgram), along the
// runtime's PATH as the project's commands get it. In the sandbox that is
// without the home, data directory and /tmp, which it hides behind
// writable tmpfs mounts the host cannot look into; what is left the host
// sees as the commands do, so a program the agent puts earlier on PATH
// changes what a name resolves to, and an always-grant of it is asked
// again (docs/policy.md, "Approvals"). With the sandbox off the PATH is
// the runtime's, up to an entry in the data directory (the worktrees).
func programResolvers(homes []string, data string) func(board.SandboxMode) func(string) string {
	path := os.Getenv("PATH")
	hidden := append([]string{data, "/tmp"}, homes...)
	sandboxed := executor.ProgramResolver(executor.HiddenPath(path, hidden, nil))
	off := executor.ProgramResolver(path, data)
	return func(m board.SandboxMode) func(string) string {
		if m == board.SandboxOff {
			return off
		}
		return sandboxed
	}
}
