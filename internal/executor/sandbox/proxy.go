package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// Inside the sandbox, the bridge executable and the proxy's socket are
// bound read-only under /run/bonsai: /run is the sandbox's own tmpfs in
// this mode, where bwrap can create the mount points (the host's
// read-only / cannot take a new directory).
const (
	bridgeIn = "/run/bonsai/bonsai"
	socketIn = "/run/bonsai/proxy.sock"
)

// proxy is the executor's own netproxy server on a unix socket in a
// private directory.
type proxy struct {
	srv    *netproxy.Server
	dir    string // 0700, holds the socket
	sock   string
	bridge string // host path of the bridge executable
	served chan error
}

// startProxy starts the proxy for o; stop undoes it.
func startProxy(o ProxyOptions) (*proxy, error) {
	bridge := o.Bridge
	if bridge == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("sandbox: proxy mode needs the bonsai executable as its bridge: %w", err)
		}
		bridge = exe
	}
	bridge, err := filepath.EvalSymlinks(bridge)
	if err == nil {
		bridge, err = filepath.Abs(bridge)
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: proxy bridge: %w", err)
	}
	if fi, err := os.Stat(bridge); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("sandbox: proxy bridge %s is not an executable file; set Options.Proxy.Bridge to the bonsai binary", bridge)
	}
	srv, err := netproxy.New(netproxy.Options{Allow: o.Allow, OnRefused: o.OnRefused, Hint: o.Hint})
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	dir, err := os.MkdirTemp("", "bonsai-proxy-") // 0700
	if err != nil {
		return nil, fmt.Errorf("sandbox: proxy socket directory: %w", err)
	}
	sock := filepath.Join(dir, "proxy.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox: proxy socket (set TMPDIR to a shorter path if it is too long): %w", err)
	}
	p := &proxy{srv: srv, dir: dir, sock: sock, bridge: bridge, served: make(chan error, 1)}
	go func() { p.served <- srv.Serve(ln) }()
	return p, nil
}

// mounts returns the bwrap arguments that bind the bridge and the socket.
func (p *proxy) mounts() []string {
	return []string{"--ro-bind", p.bridge, bridgeIn, "--ro-bind", p.sock, socketIn}
}

// wrap returns argv run by the bridge.
func (p *proxy) wrap(argv []string) []string {
	return append([]string{bridgeIn, BridgeArg, socketIn, "--"}, argv...)
}

// stop closes the proxy, waits for it and removes its directory.
func (p *proxy) stop() error {
	err := p.srv.Close()
	if serr := <-p.served; serr != nil {
		err = errors.Join(err, serr)
	}
	return errors.Join(err, os.RemoveAll(p.dir))
}
