package cli

import (
	"os"
	"sync"

	"github.com/bonsai-run/bonsai/internal/agentexec"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
)

// newAgentExecutors returns the executors agents' commands run in
// (agentexec) for the data directory d, with config.json's agent.env,
// network.allowHosts and limits: the local executor, or this system's
// sandbox (openSandbox).
func newAgentExecutors(d config.Dir, cfg config.Config) *agentexec.Executors {
	limits := sandboxLimits(cfg.Limits)
	return &agentexec.Executors{Data: d, Home: userHome(), Env: cfg.Agent.Env, AllowHosts: cfg.Network.AllowHosts,
		Available: sync.OnceValue(sandboxAvailable), Engines: engineCLIs, Locate: engineLocate,
		OpenLocal: func(root string, env []string) (executor.Executor, error) {
			return local.New(root, local.Options{Env: env})
		},
		OpenSandbox: func(root string, s agentexec.Spec) (agentexec.Closer, error) {
			return openSandbox(root, s, projectLimits(limits, s.Agent))
		},
	}
}

// sandboxUsable wraps available's answer in executor.ErrSandboxUnavailable.
var sandboxUsable = agentexec.Usable

// sandboxLimits are config.json's limits, defaults filled in, in bytes.
func sandboxLimits(c config.Limits) sandbox.Limits {
	r := c.Resolved()
	mib := func(v config.AutoInt) int64 { return int64(v) << 20 }
	return sandbox.Limits{Memory: mib(r.MemoryMiB), Processes: int(r.Processes), Tmp: mib(r.TmpMiB),
		FileSize: mib(r.FileSizeMiB), DiskGrowth: mib(r.DiskGrowthMiB)}
}

// userHome is the home the sandbox hides; "" lets the sandbox ask.
func userHome() string {
	h, _ := os.UserHomeDir()
	return h
}
