package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// A connection that sent no request (a browser's preconnect, a client's
// dial it cancelled) does not hold a graceful shutdown: Serve returns
// without error. Before silentConns, Shutdown counted it busy for five
// seconds and Serve ended with "context deadline exceeded".
func TestServe_ShutdownClosesSilentConnections(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx, l) }()
	silent, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// The server accepts connections in order: once a later one is
	// answered, the silent one is accepted and waits for its request.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get("http://" + l.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(time.Minute): // a failure's deadline, not a timing check
		t.Fatal("Serve did not return after the context ended")
	}
	// The server closed the silent connection: reading it ends.
	silent.SetReadDeadline(time.Now().Add(time.Minute))
	if n, err := silent.Read(make([]byte, 1)); err == nil {
		t.Errorf("the silent connection is still open (read %d bytes)", n)
	}
}
