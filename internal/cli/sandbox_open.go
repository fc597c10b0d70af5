package cli

import (
	"fmt"
	"runtime"

	"github.com/bonsai-run/bonsai/internal/agentexec"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
	"github.com/bonsai-run/bonsai/internal/executor/seatbelt"
	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// sandboxAvailable reports whether this system's sandbox can start:
// Seatbelt on macOS, bubblewrap elsewhere (which says it is Linux only).
func sandboxAvailable() error {
	if runtime.GOOS == "darwin" {
		return seatbelt.Available()
	}
	return sandbox.Available()
}

// sandboxInstalled is sandboxAvailable without starting the sandbox: it
// only looks for its program.
func sandboxInstalled() error {
	if runtime.GOOS == "darwin" {
		return seatbelt.Installed()
	}
	return sandbox.Installed()
}

// openSandbox opens this system's sandbox executor on root, bounded by
// limits (bubblewrap only; Seatbelt has none).
func openSandbox(root string, s agentexec.Spec, limits sandbox.Limits) (agentexec.Closer, error) {
	if runtime.GOOS == "darwin" {
		return openSeatbelt(root, s)
	}
	var binds []sandbox.Bind
	for _, b := range s.Binds {
		binds = append(binds, sandbox.Bind{Host: b.Host, ReadOnly: b.ReadOnly, At: b.At})
	}
	return sandbox.New(root, sandbox.Options{
		Network: sandbox.Network(s.Network), Home: s.Home, DataDir: s.DataDir, GitDir: s.GitDir, Caches: s.Caches, Env: s.Env, Binds: binds, Limits: limits,
		Proxy: sandbox.ProxyOptions{Allow: s.Allow, Hint: s.Hint, OnRefused: s.OnRefused},
	})
}

// openSeatbelt opens the Seatbelt executor on root; in the proxy mode
// with a proxy of its own (seatbelt.NewProxied).
func openSeatbelt(root string, s agentexec.Spec) (agentexec.Closer, error) {
	o := seatbelt.Options{Home: s.Home, DataDir: s.DataDir, GitDir: s.GitDir, Caches: s.Caches, Env: s.Env,
		Network: seatbelt.Network(s.Network)}
	for _, b := range s.Binds {
		if b.At != "" {
			// Seatbelt shows paths, it cannot move them: the login
			// mode's credential file (Claude Code keeps it in the
			// Keychain there anyway).
			return nil, fmt.Errorf("the Seatbelt sandbox cannot show %s at %s: --engine-auth login needs Linux's sandbox; use --engine-auth gateway", b.Host, b.At)
		}
		o.Binds = append(o.Binds, seatbelt.Bind{Path: b.Host, ReadOnly: b.ReadOnly})
	}
	if s.Network != agentexec.NetworkProxy {
		return seatbelt.New(root, o)
	}
	return seatbelt.NewProxied(root, o, netproxy.Options{Allow: s.Allow, Hint: s.Hint, OnRefused: s.OnRefused})
}
