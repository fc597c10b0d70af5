package agentexec

import (
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// Network is a sandbox's network mode.
type Network string

// The network modes, as the sandboxes name them.
const (
	// NetworkProxy reaches the listed hosts only, through a proxy.
	NetworkProxy Network = "proxy"
	// NetworkNone reaches nothing.
	NetworkNone Network = "none"
	// NetworkAll shares the host's network.
	NetworkAll Network = "all"
)

// Bind is a host directory the sandbox shows at its own path.
type Bind struct {
	Host     string
	ReadOnly bool
	// At, when set, is where the sandbox shows Host instead of its own
	// path (a person's credential file in an engine's home).
	At string
}

// Spec is what a sandbox of this system is opened with, whichever it is:
// bubblewrap on Linux, Seatbelt on macOS.
type Spec struct {
	Home, DataDir, GitDir string
	Caches                map[string]string
	Env                   []string
	Network               Network
	// Allow are the hosts the proxy mode lets commands reach.
	Allow []string
	// Binds are directories of the hidden data directory (or the home)
	// the sandbox sees at their own path: an engine's state for the
	// ticket, its CLI's install directories.
	Binds []Bind
	// Hint and OnRefused configure the proxy in the proxy mode.
	Hint      string
	OnRefused func(netproxy.Refusal)
	// Agent is the project's settings, for its own limits (zero for
	// `bonsai run --sandbox`, which has no project).
	Agent board.AgentSettings
}

// Closer is an executor the caller closes.
type Closer interface {
	executor.Executor
	Close() error
}

// sandboxed is what the heartbeat and the tools use of a sandbox
// executor beside executor.Executor: Close, the run mark and HidePaths.
type sandboxed interface {
	Closer
	Mark(kv string)
	HidePaths(s string) string
}
