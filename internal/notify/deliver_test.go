package notify_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
)

// TestWebhookSignedAndRetried: the receiver sees the JSON body signed
// with the channel's secret, answers the first attempt with a 500, and
// gets the same body again once the backoff has passed.
func TestWebhookSignedAndRetried(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t, http.StatusInternalServerError)
	e.channel(board.Channel{Name: "hook", Kind: board.ChannelWebhook,
		Settings: map[string]string{"url": rcv.URL + "/bonsai", "secret": "s3cret"}})
	e.ask("Which port should the server listen on?")

	if res := e.deliver(notify.Options{}); res != (notify.Result{Retry: 1}) {
		t.Fatalf("first pass = %+v, want one retry", res)
	}
	ns := e.list()
	if ns[0].Status != board.NotifyPending || !strings.Contains(ns[0].LastError, "HTTP 500") ||
		!ns[0].NextAt.Equal(e.clock.Now().Add(notify.Backoff(1))) {
		t.Fatalf("after a 500 = %+v", ns[0])
	}
	if res := e.deliver(notify.Options{}); res != (notify.Result{}) {
		t.Fatalf("a pass before the backoff ended = %+v, want nothing", res)
	}
	e.clock.advance(notify.Backoff(1))
	if res := e.deliver(notify.Options{}); res != (notify.Result{Sent: 1}) {
		t.Fatalf("pass after the backoff = %+v, want one sent", res)
	}
	if res := e.deliver(notify.Options{}); res != (notify.Result{}) {
		t.Fatalf("pass after sending = %+v, want nothing", res)
	}

	reqs := rcv.requests()
	if len(reqs) != 2 {
		t.Fatalf("receiver got %d requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		if got, want := r.header.Get(notify.SignatureHeader), notify.Sign("s3cret", r.body); got != want || !strings.HasPrefix(got, "sha256=") {
			t.Errorf("signature %q, want %q", got, want)
		}
		if r.header.Get("Content-Type") != "application/json" || r.header.Get("X-Bonsai-Event") != "question" {
			t.Errorf("headers %v", r.header)
		}
	}
	if string(reqs[0].body) != string(reqs[1].body) {
		t.Errorf("the retry's body differs:\n%s\n%s", reqs[0].body, reqs[1].body)
	}
	m := decode(t, reqs[1].body)
	if m["event"] != "question" || m["ticket"] != "demo#1" || m["project"] != "demo" || m["title"] != "Pick a port" ||
		m["text"] != "Which port should the server listen on?" || !strings.Contains(m["subject"].(string), "demo#1") ||
		!strings.Contains(m["body"].(string), "bonsai comment add demo#1") || m["id"].(float64) == 0 {
		t.Errorf("body = %v", m)
	}
	// A wrong secret does not verify: the check above can fail.
	if notify.Sign("other", reqs[1].body) == reqs[1].header.Get(notify.SignatureHeader) {
		t.Error("a different secret gives the same signature")
	}
	if ns := e.list(); ns[0].Status != board.NotifySent || ns[0].Attempts != 2 || ns[0].LastError != "" {
		t.Errorf("after delivery = %+v", ns[0])
	}
}

// TestReceiverDownDeliveredLaterOnce: a notification written while the
// receiver is down is delivered when it is back, exactly once, even with
// two processes delivering at once.
func TestReceiverDownDeliveredLaterOnce(t *testing.T) {
	e := newEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // down: connections are refused
	e.channel(board.Channel{Name: "hook", Kind: board.ChannelWebhook,
		Settings: map[string]string{"url": "http://" + addr + "/hook", "secret": "k"}})
	for range 5 {
		e.ask("q")
	}
	if res := e.deliver(notify.Options{}); res != (notify.Result{Retry: 5}) {
		t.Fatalf("pass while down = %+v", res)
	}
	if ns := e.list(); !strings.Contains(ns[0].LastError, "refused") {
		t.Errorf("error while down = %q", ns[0].LastError)
	}

	// Back up on the same address.
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	rcv := &receiver{}
	srv := &http.Server{Handler: http.HandlerFunc(rcv.serve)}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })

	e.clock.advance(notify.Backoff(1))
	var wg sync.WaitGroup
	results := make([]notify.Result, 2)
	for i, st := range []notify.Outbox{e.st, e.open()} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := e.deliverer(st, notify.Options{}).Deliver(t.Context())
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	if sent := results[0].Sent + results[1].Sent; sent != 5 {
		t.Errorf("sent %d (%+v), want 5", sent, results)
	}
	ids := map[string]int{}
	for _, r := range rcv.requests() {
		ids[r.header.Get("X-Bonsai-Delivery")]++
	}
	if len(ids) != 5 {
		t.Errorf("receiver got deliveries %v, want 5 distinct", ids)
	}
	for id, n := range ids {
		if n != 1 {
			t.Errorf("delivery %s arrived %d times", id, n)
		}
	}
}

// TestNotFoundFailsAtOnce: a Slack URL that answers 404 is a failed
// delivery on the first attempt, shown with the reason and without the
// URL, whose path is the secret.
func TestNotFoundFailsAtOnce(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t, http.StatusNotFound)
	e.channel(board.Channel{Name: "chat", Kind: board.ChannelSlack,
		Settings: map[string]string{"url": rcv.URL + "/services/T000/B000/XXXXsecret"}})
	e.ask("q")
	if res := e.deliver(notify.Options{}); res != (notify.Result{Failed: 1}) {
		t.Fatalf("pass = %+v, want one failed", res)
	}
	n := e.list()[0]
	if n.Status != board.NotifyFailed || !strings.Contains(n.LastError, "HTTP 404") || strings.Contains(n.LastError, "XXXXsecret") {
		t.Errorf("notification = %+v", n)
	}
	e.clock.advance(notify.MaxRetry)
	if res := e.deliver(notify.Options{}); res != (notify.Result{}) {
		t.Errorf("a failed notification was tried again: %+v", res)
	}
}

// TestGivesUp: an endpoint that keeps failing gets MaxAttempts attempts,
// then the notification is failed and never tried again.
func TestGivesUp(t *testing.T) {
	e := newEnv(t)
	statuses := make([]int, 100)
	for i := range statuses {
		statuses[i] = http.StatusBadGateway
	}
	rcv := newReceiver(t, statuses...)
	e.channel(board.Channel{Name: "hook", Kind: board.ChannelDiscord, Settings: map[string]string{"url": rcv.URL}})
	e.ask("q")
	for i := 1; i < notify.MaxAttempts; i++ {
		if res := e.deliver(notify.Options{}); res != (notify.Result{Retry: 1}) {
			t.Fatalf("attempt %d = %+v, want a retry", i, res)
		}
		e.clock.advance(notify.Backoff(i))
	}
	if res := e.deliver(notify.Options{}); res != (notify.Result{Failed: 1}) {
		t.Fatalf("last attempt = %+v, want failed", res)
	}
	e.clock.advance(notify.MaxRetry)
	if res := e.deliver(notify.Options{}); res != (notify.Result{}) {
		t.Fatalf("after giving up = %+v", res)
	}
	if got := len(rcv.requests()); got != notify.MaxAttempts {
		t.Errorf("receiver got %d attempts, want %d", got, notify.MaxAttempts)
	}
	if n := e.list()[0]; n.Status != board.NotifyFailed || n.Attempts != notify.MaxAttempts || !strings.Contains(n.LastError, "502") {
		t.Errorf("notification = %+v", n)
	}
}

// TestSlowEndpointDoesNotHold: an endpoint that never answers costs one
// attempt's timeout and is tried again later.
func TestSlowEndpointDoesNotHold(t *testing.T) {
	e := newEnv(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	e.channel(board.Channel{Name: "hook", Kind: board.ChannelWebhook, Settings: map[string]string{"url": srv.URL, "secret": "k"}})
	e.ask("q")
	o := notify.Options{Timeout: 100 * time.Millisecond}
	if res := e.deliver(o); res != (notify.Result{Retry: 1}) {
		t.Fatalf("pass = %+v, want a retry", res)
	}
	if n := e.list()[0]; !strings.Contains(n.LastError, "deadline") {
		t.Errorf("error = %q", n.LastError)
	}
}

// TestBackoff doubles from FirstRetry up to MaxRetry.
func TestBackoff(t *testing.T) {
	if notify.Backoff(1) != notify.FirstRetry || notify.Backoff(2) != 2*notify.FirstRetry || notify.Backoff(50) != notify.MaxRetry {
		t.Errorf("Backoff = %v %v %v", notify.Backoff(1), notify.Backoff(2), notify.Backoff(50))
	}
}
