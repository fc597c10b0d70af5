package netproxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestForward: a forwarded name reaches the loopback server it names,
// over plain HTTP and CONNECT; the server's own address, other names,
// other ports and a listed name resolving to the loopback stay refused;
// remove ends it and closes its tunnels.
func TestForward(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "gateway "+r.Host) }))
	defer plain.Close()
	hp := hostPort(t, plain.URL)
	port := portOf(hp)
	e := newEcho(t)
	p := start(t, Options{Allow: []string{fmt.Sprintf("localhost:%d", port)}})
	name := fmt.Sprintf("bonsai-gateway.invalid:%d", port)
	remove, err := p.Forward(name, hp)
	if err != nil {
		t.Fatal(err)
	}
	removeEcho, err := p.Forward("bonsai-board.invalid:7", e.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer removeEcho()
	if code, body := get(t, p.client(nil), "http://"+name+"/v1"); code != 200 || body != "gateway "+name {
		t.Fatalf("forwarded: %d %q", code, body)
	}
	c, br, status := tunnelTo(t, p.addr, "BONSAI-BOARD.invalid.:7")
	defer c.Close()
	if status != "HTTP/1.1 200 Connection established" {
		t.Fatalf("CONNECT: %s", status)
	}
	roundTrip(t, c, br, "hello")

	for _, u := range []string{
		plain.URL,                                // the server's own address
		fmt.Sprintf("http://localhost:%d", port), // listed, but resolves to the loopback
		fmt.Sprintf("http://bonsai-gateway.invalid:%d", port+1), // another port
		fmt.Sprintf("http://bonsai-other.invalid:%d", port),     // another name
		fmt.Sprintf("http://x.bonsai-gateway.invalid:%d", port), // a name below it
	} {
		if code, body := get(t, p.client(nil), u); code != http.StatusForbidden {
			t.Errorf("%s: %d %q", u, code, body)
		}
	}
	if r := p.refusals(); len(r) != 5 || !strings.Contains(r[1].Reason, "resolves to") {
		t.Fatalf("refusals: %+v", r)
	}

	remove()
	if code, _ := get(t, p.client(nil), "http://"+name+"/v1"); code != http.StatusForbidden {
		t.Fatalf("after remove: %d", code)
	}
	removeEcho()
	if _, err := br.ReadString('\n'); err == nil {
		t.Fatal("the tunnel stayed open after its forward was removed")
	}
	if _, _, status := tunnelTo(t, p.addr, "bonsai-board.invalid:7"); !strings.Contains(status, "403") {
		t.Fatalf("CONNECT after remove: %s", status)
	}
}

func TestForwardChecks(t *testing.T) {
	p := start(t, Options{})
	for _, c := range []struct{ name, addr, want string }{
		{"example.com:443", "127.0.0.1:1", "must end in .invalid"},
		{"invalid:80", "127.0.0.1:1", "must end in .invalid"},
		{"127.0.0.1:80", "127.0.0.1:1", "must end in .invalid"},
		{"gw.invalid", "127.0.0.1:1", "not host:port"},
		{"gw.invalid:80", "localhost:1", "not an IP address and port"},
	} {
		if _, err := p.Forward(c.name, c.addr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Forward(%q, %q): %v, want %q", c.name, c.addr, err, c.want)
		}
	}
	if _, err := p.Forward("gw.invalid:80", "127.0.0.1:1"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Forward("GW.invalid:80", "127.0.0.1:2"); err == nil || !strings.Contains(err.Error(), "already") {
		t.Fatalf("twice: %v", err)
	}
}
