package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// Network says what network a sandboxed command sees.
type Network string

const (
	// NetworkNone gives commands a network namespace of their own with
	// only a loopback interface: nothing on the host or beyond is reachable.
	NetworkNone Network = "none"
	// NetworkAll shares the host's network.
	NetworkAll Network = "all"
	// NetworkProxy gives commands a network namespace of their own in
	// which only an HTTP(S) proxy is reachable: the executor's own
	// allow-listing netproxy server, configured by Options.Proxy.
	NetworkProxy Network = "proxy"
)

// ProxyOptions configures NetworkProxy.
type ProxyOptions struct {
	// Allow lists the hosts commands may reach, as netproxy patterns
	// ("host", "*.host", an address, each with an optional ":port"; see
	// netproxy.ParseHost). Empty allows nothing: callers usually pass
	// netproxy.DefaultAllow(), the host of the project's git remote
	// (netproxy.RemoteHost) and the project's own entries.
	Allow []string
	// OnRefused is called for every connection the proxy refuses (a host
	// not on the list, a name resolving to an internal address, too many
	// tunnels), from the proxy's goroutines, possibly several at once; it
	// must not block for long.
	OnRefused func(netproxy.Refusal)
	// Hint ends the body of the proxy's 403 answers: how a person allows
	// a host, in the program's own terms.
	Hint string
	// Bridge is the host path of the executable that runs as the bridge
	// inside the sandbox: the bonsai binary, whose main dispatches
	// BridgeArg to BridgeMain. Empty means os.Executable().
	Bridge string
}

// Options configures a sandbox executor.
type Options struct {
	// Network is NetworkNone (the default when empty), NetworkProxy or
	// NetworkAll.
	Network Network
	// Proxy configures NetworkProxy; other modes ignore it.
	Proxy ProxyOptions
	// Home is the user's home directory, replaced by an empty one inside
	// the sandbox; empty means os.UserHomeDir.
	Home string
	// DataDir is the Bonsai data directory (tokens, the database, the
	// clones), hidden inside the sandbox. Empty hides nothing more.
	DataDir string
	// Hide lists more host directories to hide behind an empty one.
	Hide []string
	// Caches maps an environment variable (GOCACHE, GOMODCACHE,
	// npm_config_cache, PIP_CACHE_DIR, CARGO_HOME...) to a host
	// directory, created if missing, that commands can write: it is bound
	// under the sandbox home and the variable points there.
	Caches map[string]string
	// GitDir is the .git directory of the clone the workspace root is a
	// worktree of. Commands may commit (objects, refs, logs and the
	// worktree's own metadata are writable) but not change the clone's
	// config, hooks or info. Empty when the root is not a worktree.
	GitDir string
	// Binds are host directories bound in at their own path after the
	// home and data directory are hidden (see Bind).
	Binds []Bind
	// Env lists extra variable names (or patterns with "*") commands
	// inherit besides executor.CleanEnv's allowlist; the denylist wins.
	Env []string
	// PerCommand starts one bwrap for every command, as before the
	// persistent sandbox: a fresh /tmp and namespaces each time, at
	// about 5 ms a command (11 in proxy mode). By default one sandbox,
	// started with the first command, runs every command of the
	// executor until Close (see the package documentation).
	PerCommand bool
	// Limits bounds what the executor's commands can take of the
	// machine; the zero value bounds nothing.
	Limits Limits
	// ReadOnly runs every command with the workspace and the clone's
	// .git bound read-only, as RunOptions.ReadOnly does for one command:
	// a read-only project's executor. /tmp, the home and the caches stay
	// writable.
	ReadOnly bool
	// noCgroup leaves the sandbox to its rlimits (tests).
	noCgroup bool
	// Server is the host path of the executable that runs as the
	// persistent sandbox's command server, a program whose main
	// dispatches BridgeArg to BridgeMain (the bonsai binary). Empty means
	// Proxy.Bridge when set in proxy mode, else the embedded bonsai-exec
	// (execbin) where it runs, else os.Executable(). PerCommand ignores
	// it.
	Server string
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// check validates o and returns it with absolute, cleaned paths.
func (o Options) check() (Options, error) {
	switch o.Network {
	case "":
		o.Network = NetworkNone
	case NetworkNone, NetworkAll:
	case NetworkProxy:
		var errs []error
		for _, p := range o.Proxy.Allow {
			errs = append(errs, netproxy.ParseHost(p))
		}
		if err := errors.Join(errs...); err != nil {
			return o, fmt.Errorf("sandbox: %w", err)
		}
	default:
		return o, fmt.Errorf("sandbox: unknown network mode %q (want none, proxy or all)", o.Network)
	}
	if err := o.Limits.check(); err != nil {
		return o, err
	}
	var err error
	abs := func(p string) string {
		if p == "" || err != nil {
			return p
		}
		var a string
		a, err = filepath.Abs(p)
		return a
	}
	o.Home, o.DataDir, o.GitDir = abs(o.Home), abs(o.DataDir), abs(o.GitDir)
	hide := make([]string, len(o.Hide))
	for i, h := range o.Hide {
		hide[i] = abs(h)
	}
	o.Hide = hide
	caches := make(map[string]string, len(o.Caches))
	for k, v := range o.Caches {
		if !envName.MatchString(k) || executor.Denied(k) {
			return o, fmt.Errorf("sandbox: cache variable %q is not a usable environment name", k)
		}
		caches[k] = abs(v)
	}
	o.Caches = caches
	if err != nil {
		return o, fmt.Errorf("sandbox: %w", err)
	}
	if o.Binds, err = checkBinds(o.Binds); err != nil {
		return o, err
	}
	return o, nil
}
