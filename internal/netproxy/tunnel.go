package netproxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// tunnel is one open CONNECT tunnel: the client's connection and the
// upstream one.
type tunnel struct {
	client, up net.Conn
	target     target // what the client asked for
	once       sync.Once
	last       atomic.Int64 // unix nanoseconds of the last byte either way
}

func (t *tunnel) close() {
	t.once.Do(func() {
		t.client.Close()
		t.up.Close()
	})
}

// connect serves CONNECT host:port.
func (s *Server) connect(w http.ResponseWriter, r *http.Request) {
	t, err := parseTarget(r.Host)
	if err != nil {
		s.refused(r.Host, portOf(r.Host), "bad CONNECT target: "+err.Error())
		http.Error(w, "bonsai proxy: bad CONNECT target: "+err.Error(), http.StatusBadRequest)
		return
	}
	if !s.allowed(t) {
		s.refuse(w, notListed(t))
		return
	}
	if !s.reserve() {
		reason := fmt.Sprintf("too many open tunnels (%d); the limit protects the host", s.opts.MaxTunnels)
		s.refused(t.host(), t.port, reason)
		http.Error(w, "bonsai proxy: "+reason, http.StatusServiceUnavailable)
		return
	}
	defer s.release()
	up, err := s.dial(r.Context(), t)
	if err != nil {
		s.upstreamError(w, t, err)
		return
	}
	client, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	tn := &tunnel{client: client, up: up, target: t}
	if !s.track(tn) {
		tn.close()
		return
	}
	defer s.untrack(tn)
	defer tn.close()
	client.SetDeadline(time.Time{})
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	// Bytes the client sent after its CONNECT (a TLS hello) are buffered.
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		if _, err := up.Write(b); err != nil {
			return
		}
	}
	tn.last.Store(time.Now().UnixNano())
	done := make(chan struct{}, 2)
	go func() { s.pipe(tn, up, client); done <- struct{}{} }()
	s.pipe(tn, client, up)
	<-done
}

// pipe copies src to dst until src ends, then half-closes dst. A read
// that waits IdleTimeout while neither direction moved ends the tunnel.
func (s *Server) pipe(t *tunnel, dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	idle := s.opts.IdleTimeout
	for {
		src.SetReadDeadline(time.Now().Add(idle))
		n, err := src.Read(buf)
		if n > 0 {
			t.last.Store(time.Now().UnixNano())
			if _, werr := dst.Write(buf[:n]); werr != nil {
				t.close()
				return
			}
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) && time.Since(time.Unix(0, t.last.Load())) < idle {
				continue // the other direction is busy
			}
			if err != io.EOF {
				t.close()
				return
			}
			if cw, ok := dst.(interface{ CloseWrite() error }); ok {
				cw.CloseWrite()
			} else {
				t.close()
			}
			return
		}
	}
}

func (s *Server) reserve() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active >= s.opts.MaxTunnels {
		return false
	}
	s.active++
	return true
}

func (s *Server) release() {
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
}

func (s *Server) track(t *tunnel) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.tunnels[t] = struct{}{}
	return true
}

func (s *Server) untrack(t *tunnel) {
	s.mu.Lock()
	delete(s.tunnels, t)
	s.mu.Unlock()
}

// refuse answers 403 for a refusal and reports it.
func (s *Server) refuse(w http.ResponseWriter, r *refusal) {
	s.refused(r.t.host(), r.t.port, r.reason)
	body := "bonsai proxy: refused: " + r.reason + ".\n"
	if s.opts.Hint != "" {
		body += s.opts.Hint + "\n"
	} else {
		body += "To reach it, add the host to the project's network allow list.\n"
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusForbidden)
	io.WriteString(w, body)
}

// upstreamError answers a failed dial: 403 for a refusal, else 502.
func (s *Server) upstreamError(w http.ResponseWriter, t target, err error) {
	var ref *refusal
	if errors.As(err, &ref) {
		s.refuse(w, ref)
		return
	}
	http.Error(w, fmt.Sprintf("bonsai proxy: cannot reach %s: %v", t, err), http.StatusBadGateway)
}
