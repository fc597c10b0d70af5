package web

import (
	"net"
	"net/http"
	"sync"
)

// silentConns holds the server's connections that have sent no request
// yet, and closes them when the server shuts down. http.Server.Shutdown
// counts such a connection as busy for its first five seconds, so one
// opened just before Ctrl-C (a browser's preconnect, or a client's dial
// it cancelled and kept in its pool) held `bonsai serve` for those five
// seconds and ended it with "context deadline exceeded".
type silentConns struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool // shutting down: a new connection is closed at once
}

// track is the server's ConnState hook.
func (s *silentConns) track(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case st != http.StateNew:
		delete(s.conns, c)
	case s.closed:
		c.Close()
	default:
		if s.conns == nil {
			s.conns = map[net.Conn]struct{}{}
		}
		s.conns[c] = struct{}{}
	}
}

// close closes the connections that have sent no request, and any
// accepted from now on; the server calls it when it shuts down.
func (s *silentConns) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for c := range s.conns {
		c.Close()
		delete(s.conns, c)
	}
}
