package netproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// refusal is the error of a connection the policy refuses.
type refusal struct {
	t      target
	reason string
}

func (r *refusal) Error() string { return r.reason }

// notListed is the refusal of a target no pattern allows.
func notListed(t target) *refusal {
	return &refusal{t, fmt.Sprintf("%s is not on the allow list", t)}
}

// special lists the ranges a name on the list may not resolve to,
// besides those netip classifies (loopback, link-local, private,
// multicast, unspecified).
var special = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network"
	netip.MustParsePrefix("100.64.0.0/10"), // shared address space (carrier NAT)
	netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),   // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"), // discard
}

// internal reports whether a is an address of this machine or its
// network, which only an IP-literal pattern may reach; it returns the
// kind for the refusal.
func internal(a netip.Addr) (string, bool) {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "a loopback address", true
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "a link-local address", true
	case a.IsPrivate():
		return "a private address", true
	case a.IsUnspecified():
		return "the unspecified address", true
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "a multicast address", true
	}
	for _, p := range special {
		if p.Contains(a) {
			return "a reserved address", true
		}
	}
	return "", false
}

// resolve returns the addresses to dial for an allowed target: a
// forward's address, the address itself for an IP literal, else the
// name's addresses, all of which must be public.
func (s *Server) resolve(ctx context.Context, t target) ([]netip.AddrPort, error) {
	if a, ok := s.forwarded(t); ok {
		return []netip.AddrPort{a}, nil
	}
	if !s.allow.allows(t) {
		return nil, notListed(t)
	}
	if t.addr.IsValid() {
		return []netip.AddrPort{netip.AddrPortFrom(t.addr, uint16(t.port))}, nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", t.name)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", t.name, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolve %s: no address", t.name)
	}
	out := make([]netip.AddrPort, len(addrs))
	for i, a := range addrs {
		a = a.Unmap()
		if kind, bad := internal(a); bad {
			return nil, &refusal{t, fmt.Sprintf("%s resolves to %s, %s; only an allow-list entry naming that address itself reaches it", t.name, a, kind)}
		}
		out[i] = netip.AddrPortFrom(a, uint16(t.port))
	}
	return out, nil
}

// dial connects to an allowed target through the addresses resolve
// checked, never through the name again.
func (s *Server) dial(ctx context.Context, t target) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.DialTimeout)
	defer cancel()
	addrs, err := s.resolve(ctx, t)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	var errs []error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, "tcp", a.String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// dialContext is the transport's dialer for plain HTTP requests.
func (s *Server) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	t, err := parseTarget(addr)
	if err != nil {
		return nil, err
	}
	return s.dial(ctx, t)
}

// portOf returns the port of host:port, 0 when there is none.
func portOf(hostport string) int {
	_, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p)
	return n
}
