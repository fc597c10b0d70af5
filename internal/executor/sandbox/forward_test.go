package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestProxy_Forward: a forwarded .invalid name reaches a server on the
// host's loopback from inside the sandbox, through the proxy the
// commands' HTTP_PROXY names; removed, it is refused again. The server's
// own address stays refused all along.
func TestProxy_Forward(t *testing.T) {
	p := newProxied(t)
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "gateway reached "+r.Host) }))
	defer gw.Close()
	hp := hostOf(t, gw.URL)
	port := strings.TrimPrefix(hp, "127.0.0.1:")
	name := "bonsai-gateway.invalid:" + port
	if code, out := p.fetch(t, "http://"+name+"/", false); code != 0 || !strings.Contains(out, "status 403") {
		t.Fatalf("before Forward: exit %d: %s", code, out)
	}
	remove, err := p.ex.Forward(name, hp)
	if err != nil {
		t.Fatal(err)
	}
	if code, out := p.fetch(t, "http://"+name+"/", false); code != 0 || out != "status 200\ngateway reached "+name {
		t.Fatalf("forwarded: exit %d: %s", code, out)
	}
	if code, out := p.fetch(t, gw.URL, false); code != 0 || !strings.Contains(out, "status 403") {
		t.Fatalf("the server's own address: exit %d: %s", code, out)
	}
	remove()
	if code, out := p.fetch(t, "http://"+name+"/", false); code != 0 || !strings.Contains(out, "status 403") {
		t.Fatalf("after remove: exit %d: %s", code, out)
	}
}

// TestForwardWithoutProxy: the all and none modes have no proxy to
// forward through, which Forward says with errors.ErrUnsupported.
func TestForwardWithoutProxy(t *testing.T) {
	requireBwrap(t)
	for _, n := range []Network{NetworkAll, NetworkNone} {
		ex := open(t, t.TempDir(), Options{Network: n})
		if _, err := ex.Forward("bonsai-gateway.invalid:1", "127.0.0.1:1"); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("%s: %v", n, fmt.Sprint(err))
		}
	}
}
