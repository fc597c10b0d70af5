package netproxy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Refusal describes one connection the proxy refused.
type Refusal struct {
	// Host is the host the client asked for, as it asked (a name or an
	// address); empty when the request named none.
	Host string
	// Port is the port the client asked for; 0 when unknown.
	Port int
	// Reason says why, in a sentence for a person.
	Reason string
	// Time is when the proxy refused it.
	Time time.Time
}

// Options configures a Server. Zero limits take the defaults named.
type Options struct {
	// Allow lists the patterns of the hosts clients may reach (see
	// ParseHost); empty allows nothing. DefaultAllow is a usual start.
	Allow []string
	// OnRefused, when set, is called once for every refused connection,
	// from the goroutine serving it, so possibly from several at once; it
	// must not block for long.
	OnRefused func(Refusal)
	// Hint ends the body of every 403 answer: how to allow a host, in
	// the terms of the program that runs the proxy.
	Hint string
	// MaxTunnels caps the CONNECT tunnels open at once (default 64);
	// one more is answered 503 and reported as a refusal.
	MaxTunnels int
	// IdleTimeout closes a tunnel or a kept-alive client connection
	// after this long without traffic (default 5 minutes).
	IdleTimeout time.Duration
	// HeaderTimeout bounds reading a request's header (default 30s).
	HeaderTimeout time.Duration
	// MaxHeaderBytes caps a request's header (default 64 KiB).
	MaxHeaderBytes int
	// DialTimeout bounds resolving and connecting upstream (default 30s).
	DialTimeout time.Duration
}

// Server is an allow-listing forward proxy. Create it with New, run it
// with Serve, stop it with Close.
type Server struct {
	opts   Options
	allow  list
	http   *http.Server
	tr     *http.Transport
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	closed  bool
	tunnels map[*tunnel]struct{}
	// forwards are the names Forward connects to a given address.
	forwards map[target]netip.AddrPort
	active   int            // tunnels reserved (open or opening)
	wg       sync.WaitGroup // handlers and tunnels
}

// New checks opts (every pattern of Allow must parse) and returns a
// Server that serves nothing yet.
func New(opts Options) (*Server, error) {
	l, err := parseList(opts.Allow)
	if err != nil {
		return nil, err
	}
	if opts.MaxTunnels <= 0 {
		opts.MaxTunnels = 64
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 5 * time.Minute
	}
	if opts.HeaderTimeout <= 0 {
		opts.HeaderTimeout = 30 * time.Second
	}
	if opts.MaxHeaderBytes <= 0 {
		opts.MaxHeaderBytes = 64 << 10
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 30 * time.Second
	}
	s := &Server{opts: opts, allow: l, tunnels: map[*tunnel]struct{}{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.tr = &http.Transport{
		Proxy:                 nil, // never a proxy of its own
		DialContext:           s.dialContext,
		DisableCompression:    true, // pass bodies through as they are
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       opts.IdleTimeout,
		TLSHandshakeTimeout:   opts.DialTimeout,
		ExpectContinueTimeout: time.Second,
	}
	s.http = &http.Server{
		Handler:           http.HandlerFunc(s.serveHTTP),
		ReadHeaderTimeout: opts.HeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		MaxHeaderBytes:    opts.MaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
		ErrorLog:          nil,
	}
	return s, nil
}

// Serve accepts clients on ln until Close; it returns nil after Close.
func (s *Server) Serve(ln net.Listener) error {
	err := s.http.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops accepting, closes every client connection and tunnel and
// waits until every goroutine serving them has returned.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for t := range s.tunnels {
		t.close()
	}
	s.mu.Unlock()
	s.cancel()
	err := s.http.Close()
	s.wg.Wait()
	s.tr.CloseIdleConnections()
	return err
}

// enter registers a goroutine serving a client; false once closed.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	return true
}

func (s *Server) refused(host string, port int, reason string) {
	if s.opts.OnRefused != nil {
		s.opts.OnRefused(Refusal{Host: host, Port: port, Reason: reason, Time: time.Now()})
	}
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "bonsai proxy: shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.wg.Done()
	if r.Method == http.MethodConnect {
		s.connect(w, r)
		return
	}
	s.forward(w, r)
}
