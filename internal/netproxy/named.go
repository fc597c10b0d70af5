package netproxy

import (
	"fmt"
	"net/netip"
	"strings"
)

// ForwardSuffix ends every name Forward accepts: ".invalid" is reserved
// (RFC 6761) and never resolves, so a forward cannot stand in for a
// host that exists.
const ForwardSuffix = ".invalid"

// Forward makes the proxy connect requests for hostport ("name:port",
// the name ending in ForwardSuffix) to addr, an IP address and port,
// even a loopback or private one the policy otherwise refuses: how a
// program on this machine (a run's model gateway) is offered to the
// sandbox under a name of its own. Exactly that name and port is
// forwarded, nothing else. remove ends the forward: later requests are
// refused and the tunnels open through it are closed. Forwarding a
// name:port already forwarded is an error.
func (s *Server) Forward(hostport, addr string) (remove func(), err error) {
	t, err := parseTarget(hostport)
	if err != nil {
		return nil, fmt.Errorf("forward: %w", err)
	}
	if t.addr.IsValid() || !strings.HasSuffix(t.name, ForwardSuffix) || t.name == ForwardSuffix[1:] {
		return nil, fmt.Errorf("forward %q: the name must end in %s, which no real host has", hostport, ForwardSuffix)
	}
	to, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, fmt.Errorf("forward %q: %q is not an IP address and port", hostport, addr)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("forward %q: the proxy is closed", hostport)
	}
	if _, ok := s.forwards[t]; ok {
		return nil, fmt.Errorf("forward %q: already forwarded", hostport)
	}
	if s.forwards == nil {
		s.forwards = map[target]netip.AddrPort{}
	}
	s.forwards[t] = netip.AddrPortFrom(to.Addr().Unmap(), to.Port())
	return func() { s.unforward(t) }, nil
}

// unforward removes t's forward, closes the tunnels opened through it
// and the idle connections that might be reused for it.
func (s *Server) unforward(t target) {
	s.mu.Lock()
	delete(s.forwards, t)
	for tn := range s.tunnels {
		if tn.target == t {
			tn.close()
		}
	}
	s.mu.Unlock()
	s.tr.CloseIdleConnections()
}

// forwarded returns the address t is forwarded to, if it is.
func (s *Server) forwarded(t target) (netip.AddrPort, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.forwards[t]
	return a, ok
}

// allowed reports whether t may be reached: forwarded or on the list.
func (s *Server) allowed(t target) bool {
	if _, ok := s.forwarded(t); ok {
		return true
	}
	return s.allow.allows(t)
}
