package cli

import (
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
)

// projectLimits are the sandbox limits of a project's runs: its own
// limits (project add|edit --limit-*) where it has them, config.json's
// limits (base, in bytes) for the others.
func projectLimits(base sandbox.Limits, a board.AgentSettings) sandbox.Limits {
	mib := func(dst *int64, v int64) {
		if v > 0 {
			*dst = v << 20
		}
	}
	mib(&base.Memory, a.LimitMemoryMiB)
	mib(&base.Tmp, a.LimitTmpMiB)
	mib(&base.FileSize, a.LimitFileSizeMiB)
	mib(&base.DiskGrowth, a.LimitDiskGrowthMiB)
	if a.LimitProcesses > 0 {
		base.Processes = int(a.LimitProcesses)
	}
	return base
}
