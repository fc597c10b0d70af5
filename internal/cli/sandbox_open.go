package cli

import (
	"errors"
	"fmt"
	"net"
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
		binds = append(binds, sandbox.Bind{Host: b.Host, ReadOnly: b.ReadOnly})
	}
	return sandbox.New(root, sandbox.Options{
		Network: sandbox.Network(s.Network), Home: s.Home, DataDir: s.DataDir, GitDir: s.GitDir, Caches: s.Caches, Env: s.Env, Binds: binds, Limits: limits,
		Proxy: sandbox.ProxyOptions{Allow: s.Allow, Hint: s.Hint, OnRefused: s.OnRefused},
	})
}

// openSeatbelt opens the Seatbelt executor on root. In the proxy mode it
// runs the allow-listing proxy on a loopback port of its own, the only
// address the profile lets commands reach, and stops it on Close.
func openSeatbelt(root string, s agentexec.Spec) (agentexec.Closer, error) {
	o := seatbelt.Options{Home: s.Home, DataDir: s.DataDir, GitDir: s.GitDir, Caches: s.Caches, Env: s.Env,
		Network: seatbelt.Network(s.Network)}
	for _, b := range s.Binds {
		o.Binds = append(o.Binds, seatbelt.Bind{Path: b.Host, ReadOnly: b.ReadOnly})
	}
	if s.Network != agentexec.NetworkProxy {
		return seatbelt.New(root, o)
	}
	srv, err := netproxy.New(netproxy.Options{Allow: s.Allow, Hint: s.Hint, OnRefused: s.OnRefused})
	if err != nil {
		return nil, fmt.Errorf("seatbelt: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("seatbelt: proxy: %w", err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	stop := func() error {
		err := srv.Close()
		if serr := <-served; serr != nil && !errors.Is(serr, net.ErrClosed) {
			err = errors.Join(err, serr)
		}
		return err
	}
	o.ProxyPort = ln.Addr().(*net.TCPAddr).Port
	ex, err := seatbelt.New(root, o)
	if err != nil {
		stop()
		return nil, err
	}
	return &proxiedSeatbelt{Executor: ex, srv: srv, stop: stop}, nil
}

// proxiedSeatbelt is a Seatbelt executor with the proxy it owns.
type proxiedSeatbelt struct {
	*seatbelt.Executor
	srv  *netproxy.Server
	stop func() error
}

// Close closes the executor, then its proxy.
func (p *proxiedSeatbelt) Close() error {
	return errors.Join(p.Executor.Close(), p.stop())
}

// Forward makes the proxy connect hostport to addr (see
// netproxy.Server.Forward): an engine run's gateway and board server.
func (p *proxiedSeatbelt) Forward(hostport, addr string) (remove func(), err error) {
	return p.srv.Forward(hostport, addr)
}
