package netproxy

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// proxy is a Server listening on the loopback, with the refusals it
// reported.
type proxy struct {
	*Server
	addr string
	mu   sync.Mutex
	refs []Refusal
	done chan error
}

func start(t *testing.T, o Options) *proxy {
	t.Helper()
	p := &proxy{done: make(chan error, 1)}
	o.OnRefused = func(r Refusal) { p.mu.Lock(); p.refs = append(p.refs, r); p.mu.Unlock() }
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.Server, p.addr = s, ln.Addr().String()
	go func() { p.done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-p.done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return p
}

func (p *proxy) refusals() []Refusal {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Refusal(nil), p.refs...)
}

func (p *proxy) client(tlsConf *tls.Config) *http.Client {
	u, _ := url.Parse("http://" + p.addr)
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), TLSClientConfig: tlsConf, DisableKeepAlives: true}}
}

func hostPort(t *testing.T, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAllowedHTTPAndCONNECT(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "plain "+r.URL.Path) }))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secure "+r.URL.Path) }))
	defer secure.Close()
	p := start(t, Options{Allow: []string{hostPort(t, plain.URL), hostPort(t, secure.URL)}})
	if code, body := get(t, p.client(nil), plain.URL+"/a"); code != 200 || body != "plain /a" {
		t.Fatalf("plain: %d %q", code, body)
	}
	tlsConf := secure.Client().Transport.(*http.Transport).TLSClientConfig
	if code, body := get(t, p.client(tlsConf), secure.URL+"/b"); code != 200 || body != "secure /b" {
		t.Fatalf("CONNECT: %d %q", code, body)
	}
	if r := p.refusals(); len(r) != 0 {
		t.Fatalf("refusals: %+v", r)
	}
}

func TestRefusedHost(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "reached") }))
	defer plain.Close()
	hp := hostPort(t, plain.URL)
	p := start(t, Options{Allow: []string{"example.com"}, Hint: "Run: bonsai project edit P --allow-host HOST"})
	code, body := get(t, p.client(nil), plain.URL)
	if code != http.StatusForbidden || !strings.Contains(body, hp+" is not on the allow list") || !strings.Contains(body, "--allow-host") {
		t.Fatalf("plain: %d %q", code, body)
	}
	// CONNECT: the client sees the refusal as an error carrying the status.
	c := p.client(&tls.Config{InsecureSkipVerify: true})
	if _, err := c.Get("https://" + hp + "/"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("CONNECT: %v", err)
	}
	r := p.refusals()
	host, _, _ := net.SplitHostPort(hp)
	if len(r) != 2 || r[0].Host != host || r[0].Port != portOf(hp) || r[1].Host != host || r[0].Time.IsZero() || !strings.Contains(r[0].Reason, "not on the allow list") {
		t.Fatalf("refusals: %+v", r)
	}
}

// TestRebinding: a name on the list that resolves to the loopback is
// refused; the address itself, listed, is reached.
func TestRebinding(t *testing.T) {
	if _, err := net.LookupHost("localhost"); err != nil {
		t.Skip("localhost does not resolve here")
	}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "reached") }))
	defer plain.Close()
	port := portOf(hostPort(t, plain.URL))
	p := start(t, Options{Allow: []string{fmt.Sprintf("localhost:%d", port)}})
	code, body := get(t, p.client(nil), fmt.Sprintf("http://localhost:%d/", port))
	if code != http.StatusForbidden || !strings.Contains(body, "a loopback address") {
		t.Fatalf("plain: %d %q", code, body)
	}
	if _, err := p.client(nil).Get(fmt.Sprintf("https://localhost:%d/", port)); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("CONNECT: %v", err)
	}
	if r := p.refusals(); len(r) != 2 || r[0].Host != "localhost" || !strings.Contains(r[1].Reason, "resolves to") {
		t.Fatalf("refusals: %+v", r)
	}
	for _, a := range []string{"127.0.0.1", "10.1.2.3", "192.168.0.1", "169.254.169.254", "::1", "fe80::1", "fd00::1", "0.0.0.0", "::", "100.64.0.1", "::ffff:127.0.0.1", "224.0.0.1"} {
		if _, bad := internal(mustAddr(t, a)); !bad {
			t.Errorf("%s is not internal", a)
		}
	}
	for _, a := range []string{"1.1.1.1", "140.82.112.3", "2606:4700::1111"} {
		if _, bad := internal(mustAddr(t, a)); bad {
			t.Errorf("%s is internal", a)
		}
	}
}

// TestHopByHop: hop-by-hop headers, and those Connection names, stop at
// the proxy both ways; the others pass.
func TestHopByHop(t *testing.T) {
	seen := make(chan http.Header, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		w.Header().Set("Connection", "X-Resp-Hop")
		w.Header().Set("X-Resp-Hop", "1")
		w.Header().Set("Keep-Alive", "timeout=5")
		w.Header().Set("X-End", "kept")
		io.WriteString(w, "ok")
	}))
	defer up.Close()
	hp := hostPort(t, up.URL)
	p := start(t, Options{Allow: []string{hp}})
	c, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET http://%s/x HTTP/1.1\r\nHost: %s\r\nConnection: X-Req-Hop\r\nX-Req-Hop: 1\r\nProxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\nTe: trailers\r\nX-End: kept\r\n\r\n", hp, hp)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	h := <-seen
	for _, k := range []string{"X-Req-Hop", "Proxy-Authorization", "Proxy-Connection", "Te"} {
		if h.Get(k) != "" {
			t.Errorf("the upstream got %s: %q", k, h.Get(k))
		}
	}
	if h.Get("X-End") != "kept" {
		t.Errorf("the upstream lost X-End: %v", h)
	}
	for _, k := range []string{"X-Resp-Hop", "Keep-Alive"} {
		if resp.Header.Get(k) != "" {
			t.Errorf("the client got %s: %q", k, resp.Header.Get(k))
		}
	}
	if resp.Header.Get("X-End") != "kept" {
		t.Errorf("the client lost X-End: %v", resp.Header)
	}
}

// echo is a TCP server that echoes every connection until it ends; it
// counts the connections that ended.
type echo struct {
	ln    net.Listener
	ended chan struct{}
}

func newEcho(t *testing.T) *echo {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &echo{ln: ln, ended: make(chan struct{}, 100)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close(); e.ended <- struct{}{} }()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return e
}

// tunnelTo opens a CONNECT tunnel through the proxy and returns the
// connection and the status line.
func tunnelTo(t *testing.T, proxyAddr, target string) (net.Conn, *bufio.Reader, string) {
	t.Helper()
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	for {
		l, err := br.ReadString('\n')
		if err != nil || l == "\r\n" {
			break
		}
	}
	return c, br, strings.TrimSpace(line)
}

func roundTrip(t *testing.T, c net.Conn, br *bufio.Reader, msg string) {
	t.Helper()
	if _, err := io.WriteString(c, msg+"\n"); err != nil {
		t.Fatal(err)
	}
	got, err := br.ReadString('\n')
	if err != nil || got != msg+"\n" {
		t.Fatalf("echo: %q %v", got, err)
	}
}

func TestTunnelCap(t *testing.T) {
	e := newEcho(t)
	target := e.ln.Addr().String()
	p := start(t, Options{Allow: []string{target}, MaxTunnels: 2})
	var open []net.Conn
	for i := 0; i < 2; i++ {
		c, br, status := tunnelTo(t, p.addr, target)
		defer c.Close()
		if !strings.Contains(status, " 200 ") {
			t.Fatalf("tunnel %d: %s", i, status)
		}
		roundTrip(t, c, br, "hello")
		open = append(open, c)
	}
	c, _, status := tunnelTo(t, p.addr, target)
	c.Close()
	if !strings.Contains(status, " 503 ") {
		t.Fatalf("third tunnel: %s", status)
	}
	if r := p.refusals(); len(r) != 1 || !strings.Contains(r[0].Reason, "too many open tunnels") {
		t.Fatalf("refusals: %+v", r)
	}
	// Closing one frees its place, once the proxy has seen it end.
	open[0].Close()
	<-e.ended
	for i := 0; ; i++ {
		c, br, status := tunnelTo(t, p.addr, target)
		defer c.Close()
		if strings.Contains(status, " 200 ") {
			roundTrip(t, c, br, "again")
			break
		}
		if i == 200 {
			t.Fatalf("after one closed: %s", status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCloseWithOpenTunnels: Close ends every tunnel on both sides and
// returns only after the goroutines serving them have.
func TestCloseWithOpenTunnels(t *testing.T) {
	e := newEcho(t)
	target := e.ln.Addr().String()
	p := start(t, Options{Allow: []string{target}})
	var conns []*bufio.Reader
	for i := 0; i < 3; i++ {
		c, br, status := tunnelTo(t, p.addr, target)
		defer c.Close()
		if !strings.Contains(status, " 200 ") {
			t.Fatalf("tunnel %d: %s", i, status)
		}
		roundTrip(t, c, br, fmt.Sprint("tunnel ", i))
		conns = append(conns, br)
	}
	// A kept-alive plain client connection too.
	idle, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-p.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	p.done <- nil // for the cleanup
	for i, br := range conns {
		if _, err := br.ReadString('\n'); err == nil {
			t.Errorf("tunnel %d still open on the client's side", i)
		}
	}
	for i := 0; i < 3; i++ {
		<-e.ended // the upstream side of each tunnel was closed
	}
	// Close waited for them; a goroutine that has signalled it is done
	// may still be between its last statement and its exit, so allow it
	// that moment.
	for i := 0; ; i++ {
		stacks := serverStacks()
		if stacks == "" {
			break
		}
		if i == 100 {
			t.Fatalf("still running after Close:\n%s", stacks)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := net.Dial("tcp", p.addr); err == nil {
		t.Error("the proxy still accepts after Close")
	}
}

func TestIdleTunnelCloses(t *testing.T) {
	e := newEcho(t)
	target := e.ln.Addr().String()
	p := start(t, Options{Allow: []string{target}, IdleTimeout: 100e6})
	c, br, status := tunnelTo(t, p.addr, target)
	defer c.Close()
	if !strings.Contains(status, " 200 ") {
		t.Fatal(status)
	}
	if _, err := br.ReadString('\n'); err == nil {
		t.Fatal("an idle tunnel delivered data")
	}
	<-e.ended
}

func TestLimitsAndMalformed(t *testing.T) {
	p := start(t, Options{Allow: []string{"example.com"}, MaxHeaderBytes: 1024})
	c, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 8<<10))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("big header: %d", resp.StatusCode)
	}
	// Origin-form: someone talking to the proxy as if it were a server.
	resp2, err := http.Get("http://" + p.addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusBadRequest {
		t.Fatalf("origin-form: %d", resp2.StatusCode)
	}
	if _, err := New(Options{Allow: []string{"ok.com", "https://bad.com"}}); err == nil || !strings.Contains(err.Error(), "bad.com") {
		t.Fatalf("a bad pattern accepted: %v", err)
	}
}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// serverStacks returns the stacks of the goroutines running the
// Server's code.
func serverStacks() string {
	buf := make([]byte, 1<<20)
	var out []string
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "netproxy.(*Server)") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}
