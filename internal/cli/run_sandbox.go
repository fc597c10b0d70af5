package cli

import (
	"github.com/bonsai-run/bonsai/internal/agentexec"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
)

// checkRunSandbox checks `bonsai run`'s --sandbox and --network flags.
func checkRunSandbox(o runOptions) error {
	if o.networkSet && !o.sandbox {
		return usagef("--network applies to sandboxed commands; add --sandbox (without it commands run on the host, with its network)")
	}
	if o.network != string(sandbox.NetworkNone) && o.network != string(sandbox.NetworkAll) {
		return usagef("--network %q is not one of none, all", o.network)
	}
	return nil
}

// openRunSandbox opens the sandbox executor of `bonsai run --sandbox` in
// the directory cwd (agentexec.Executors.OpenRun).
func openRunSandbox(d config.Dir, cfg config.Config, cwd, network string) (workspaceExecutor, error) {
	return newAgentExecutors(d, cfg).OpenRun(cwd, agentexec.Network(network))
}
