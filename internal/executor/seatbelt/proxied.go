package seatbelt

import (
	"errors"
	"fmt"
	"net"

	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// Proxied is a Seatbelt executor in the proxy network mode with the
// allow-listing proxy it owns.
type Proxied struct {
	*Executor
	srv  *netproxy.Server
	stop func() error
}

// NewProxied opens the executor on root in the proxy network mode: it
// runs the allow-listing proxy of p on a loopback port of its own, the
// only address the profile lets commands reach (o.ProxyPort), and stops
// it on Close.
func NewProxied(root string, o Options, p netproxy.Options) (*Proxied, error) {
	srv, err := netproxy.New(p)
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
	o.Network, o.ProxyPort = NetworkProxy, ln.Addr().(*net.TCPAddr).Port
	ex, err := New(root, o)
	if err != nil {
		stop()
		return nil, err
	}
	return &Proxied{Executor: ex, srv: srv, stop: stop}, nil
}

// Close closes the executor, then its proxy.
func (p *Proxied) Close() error {
	return errors.Join(p.Executor.Close(), p.stop())
}

// Forward makes the proxy connect hostport to addr (see
// netproxy.Server.Forward): an engine run's gateway and board server.
func (p *Proxied) Forward(hostport, addr string) (remove func(), err error) {
	return p.srv.Forward(hostport, addr)
}
