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
	serverIn = "/run/bonsai/server" // the command server's binary (not with NetworkAll)
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
	bridge, err := executable(o.Bridge, "Options.Proxy.Bridge")
	if err != nil {
		return nil, err
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

// executable returns the absolute, symlink-free path of the bonsai
// binary at path (os.Executable() when empty), which must be an
// executable file; field names the option that sets it.
func executable(path, field string) (string, error) {
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("sandbox: the sandbox runs the bonsai executable inside: %w; set %s", err, field)
		}
		path = exe
	}
	p, err := filepath.EvalSymlinks(path)
	if err == nil {
		p, err = filepath.Abs(p)
	}
	if err != nil {
		return "", fmt.Errorf("sandbox: %s: %w", field, err)
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("sandbox: %s is not an executable file; set %s to the bonsai binary", p, field)
	}
	return p, nil
}

// Forward makes the proxy of NetworkProxy connect hostport (a name
// ending in netproxy.ForwardSuffix, and a port) to addr, a server of the
// host such as an engine run's model gateway on the loopback, which the
// sandbox's commands then reach through their HTTP(S)_PROXY as
// http://hostport (see netproxy.Server.Forward). remove ends it. Without
// the proxy (the none and all modes) it fails with errors.ErrUnsupported.
func (s *Executor) Forward(hostport, addr string) (remove func(), err error) {
	if s.proxy == nil {
		return nil, fmt.Errorf("sandbox: forward %s: the %s network mode has no proxy: %w", hostport, s.opts.Network, errors.ErrUnsupported)
	}
	return s.proxy.srv.Forward(hostport, addr)
}
