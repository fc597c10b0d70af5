package cli

import (
	"errors"
	"fmt"
	"net"
	"runtime"

	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
	"github.com/bonsai-run/bonsai/internal/executor/seatbelt"
	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// sandboxSpec is what a sandbox of this system is opened with, whichever
// it is: bubblewrap on Linux, Seatbelt on macOS.
type sandboxSpec struct {
	Home, DataDir, GitDir string
	Caches                map[string]string
	Env                   []string
	Net                   projectNetwork
	// Binds are directories of the hidden data directory the sandbox
	// sees at their own path: an engine's state for the ticket.
	Binds []sandbox.Bind
	// Limits bound the sandbox (bubblewrap only; Seatbelt has none).
	Limits sandbox.Limits
	// Hint and OnRefused configure the proxy in the proxy mode.
	Hint      string
	OnRefused func(netproxy.Refusal)
}

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

// openSandbox opens this system's sandbox executor on root.
func openSandbox(root string, s sandboxSpec) (workspaceExecutor, error) {
	if runtime.GOOS == "darwin" {
		return openSeatbelt(root, s)
	}
	return sandbox.New(root, sandbox.Options{
		Network: s.Net.Mode, Home: s.Home, DataDir: s.DataDir, GitDir: s.GitDir, Caches: s.Caches, Env: s.Env, Binds: s.Binds, Limits: s.Limits,
		Proxy: sandbox.ProxyOptions{Allow: s.Net.Allow, Hint: s.Hint, OnRefused: s.OnRefused},
	})
}

// openSeatbelt opens the Seatbelt executor on root. In the proxy mode it
// runs the allow-listing proxy on a loopback port of its own, the only
// address the profile lets commands reach, and stops it on Close.
func openSeatbelt(root string, s sandboxSpec) (workspaceExecutor, error) {
	o := seatbelt.Options{Home: s.Home, DataDir: s.DataDir, GitDir: s.GitDir, Caches: s.Caches, Env: s.Env,
		Network: seatbelt.Network(s.Net.Mode)}
	for _, b := range s.Binds {
		o.Binds = append(o.Binds, seatbelt.Bind{Path: b.Host, ReadOnly: b.ReadOnly})
	}
	if s.Net.Mode != sandbox.NetworkProxy {
		return seatbelt.New(root, o)
	}
	srv, err := netproxy.New(netproxy.Options{Allow: s.Net.Allow, Hint: s.Hint, OnRefused: s.OnRefused})
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
