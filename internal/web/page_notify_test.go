package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/store"
)

// realNotifier is internal/notify, as cli wires it.
type realNotifier struct{}

func (realNotifier) Check(c board.Channel) error { return notify.Check(c) }
func (realNotifier) Test(ctx context.Context, c board.Channel) error {
	s, err := notify.New(c, notify.Options{})
	if err != nil {
		return err
	}
	return s.Send(ctx, notify.TestMessage(c.CreatedAt))
}
func (realNotifier) Target(c board.Channel) string { return notify.Target(c) }

// TestNotifications_AddTestRemove: a channel added on the page gets a test
// message, is listed without its secret, and a Slack URL that answers 404
// or a URL that is not http(s) is refused with the reason.
func TestNotifications_AddTestRemove(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.opts.Notify = realNotifier{}
	var got []string
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.Path+" "+r.Header.Get(notify.SignatureHeader))
		if strings.HasPrefix(r.URL.Path, "/services/") {
			http.Error(w, "no_service", http.StatusNotFound)
		}
	}))
	t.Cleanup(rcv.Close)
	c := e.browser(t)

	r := e.get(t, c, "/settings/notifications")
	wantStatus(t, r, 200)
	wantBody(t, r, "No channels yet.", `id="add-channel"`)

	r = e.post(t, c, "/settings/notifications", url.Values{"name": {"ci"}, "kind": {"webhook"}, "url": {"ftp://example.com"}, "secret": {"s3cret"}})
	wantStatus(t, r, 400)
	wantBody(t, r, "want an http:// or https:// URL")
	r = e.post(t, c, "/settings/notifications", url.Values{"name": {"team"}, "kind": {"slack"}, "url": {rcv.URL + "/services/T0/B0/XXXXkey"}})
	wantStatus(t, r, 400)
	wantBody(t, r, "not added: the test notification failed: Slack answered HTTP 404")
	if strings.Contains(r.body, "XXXXkey") {
		t.Error("the page shows the Slack URL's key")
	}

	r = e.post(t, c, "/settings/notifications", url.Values{"name": {"ci"}, "kind": {"webhook"}, "url": {rcv.URL + "/hook"},
		"secret": {"s3cret"}, "events": {"question", "review"}})
	r = follow(t, e, c, r)
	wantBody(t, r, "Added channel ci", "<td>ci</td><td>webhook</td>", "question, review", "/hook</code>")
	if strings.Contains(r.body, "s3cret") {
		t.Error("the page shows the webhook's secret")
	}
	if len(got) != 2 || !strings.HasPrefix(got[1], "/hook sha256=") {
		t.Errorf("receiver got %q", got)
	}

	// A failed delivery shows on the page.
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Port", board.Research)
	if _, err := e.db.AddComment(t.Context(), tk.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindQuestion, Content: "which?"}); err != nil {
		t.Fatal(err)
	}
	ds, err := e.db.ClaimNotifications(t.Context(), "t", time.Minute, 10)
	if err != nil || len(ds) != 1 {
		t.Fatalf("claim = %v, %v", ds, err)
	}
	if err := e.db.SettleNotification(t.Context(), ds[0].ID, "t", board.Outcome{Err: "the webhook answered HTTP 410"}); err != nil {
		t.Fatal(err)
	}
	r = e.get(t, c, "/settings/notifications")
	wantBody(t, r, `<span class="badge warn">1</span>`, "the webhook answered HTTP 410", `<span class="run-status failed">failed</span>`)

	r = follow(t, e, c, e.post(t, c, "/settings/notifications/ci/test", nil))
	wantBody(t, r, "Sent a test notification to ci")
	r = follow(t, e, c, e.post(t, c, "/settings/notifications/ci/remove", nil))
	wantBody(t, r, "Removed channel ci", "No channels yet.")
	if ns, _ := e.db.NotificationList(t.Context(), store.NotificationFilter{}); len(ns) != 0 {
		t.Errorf("a removed channel's notifications remain: %v", ns)
	}
}

// follow checks that r redirects back to the notifications page and gets
// that page.
func follow(t *testing.T, e *env, c *http.Client, r response) response {
	t.Helper()
	wantStatus(t, r, http.StatusSeeOther)
	loc := r.header.Get("Location")
	if !strings.HasPrefix(loc, "/settings/notifications?") {
		t.Fatalf("redirect to %q", loc)
	}
	r = e.get(t, c, loc)
	wantStatus(t, r, http.StatusOK)
	return r
}
