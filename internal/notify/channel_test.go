package notify_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
)

func sendTest(t *testing.T, c board.Channel) error {
	t.Helper()
	s, err := notify.New(c, notify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Send(t.Context(), notify.NewMessage(board.Notification{ID: 7, Kind: board.NotifyReview, Project: "demo",
		Ticket: "demo#3", Title: "Add <login> & logout", CreatedAt: time.Now()}))
}

// TestChatFormats: Slack, Discord and ntfy get their own JSON shapes.
func TestChatFormats(t *testing.T) {
	rcv := newReceiver(t)
	for _, c := range []board.Channel{
		{Name: "s", Kind: board.ChannelSlack, Settings: map[string]string{"url": rcv.URL + "/services/T/B/x"}},
		{Name: "d", Kind: board.ChannelDiscord, Settings: map[string]string{"url": rcv.URL + "/api/webhooks/1/x"}},
		{Name: "n", Kind: board.ChannelNtfy, Settings: map[string]string{"url": rcv.URL + "/bonsai-alerts", "token": "tk_abc"}},
	} {
		if err := sendTest(t, c); err != nil {
			t.Fatalf("%s: %v", c.Kind, err)
		}
	}
	reqs := rcv.requests()
	slack, discord, ntfy := decode(t, reqs[0].body), decode(t, reqs[1].body), decode(t, reqs[2].body)
	if txt, _ := slack["text"].(string); !strings.HasPrefix(txt, "*Ready for review: demo#3") || !strings.Contains(txt, "&lt;login&gt; &amp;") || len(slack) != 1 {
		t.Errorf("slack body = %v", slack)
	}
	if c, _ := discord["content"].(string); !strings.HasPrefix(c, "**Ready for review: demo#3") || discord["username"] != "Bonsai" ||
		discord["allowed_mentions"] == nil {
		t.Errorf("discord body = %v", discord)
	}
	if ntfy["topic"] != "bonsai-alerts" || !strings.Contains(ntfy["title"].(string), "demo#3") || ntfy["message"] == "" ||
		reqs[2].header.Get("Authorization") != "Bearer tk_abc" {
		t.Errorf("ntfy body = %v, header %v", ntfy, reqs[2].header)
	}
}

// TestNtfyTopicPath: ntfy's JSON goes to the server's root, under a path
// prefix when the server has one.
func TestNtfyTopicPath(t *testing.T) {
	rcv := newReceiver(t)
	for _, u := range []string{rcv.URL + "/alerts", rcv.URL + "/ntfy/alerts"} {
		if err := sendTest(t, board.Channel{Name: "n", Kind: board.ChannelNtfy, Settings: map[string]string{"url": u}}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := rcv.requests()
	if len(reqs) != 2 || reqs[0].path != "/" || reqs[1].path != "/ntfy" ||
		decode(t, reqs[0].body)["topic"] != "alerts" || decode(t, reqs[1].body)["topic"] != "alerts" {
		t.Errorf("requests = %+v", reqs)
	}
}

// TestCheck refuses settings that cannot work, saying what to give.
func TestCheck(t *testing.T) {
	cases := []struct {
		c    board.Channel
		want string
	}{
		{board.Channel{Name: "w", Kind: board.ChannelWebhook, Settings: map[string]string{"url": "ftp://example.com/x", "secret": "k"}}, "want an http:// or https:// URL"},
		{board.Channel{Name: "w", Kind: board.ChannelWebhook, Settings: map[string]string{"url": "example.com/hook", "secret": "k"}}, "want an http:// or https:// URL"},
		{board.Channel{Name: "w", Kind: board.ChannelWebhook, Settings: map[string]string{"url": "https://example.com/hook"}}, "needs a secret"},
		{board.Channel{Name: "s", Kind: board.ChannelSlack, Settings: map[string]string{}}, "needs a URL"},
		{board.Channel{Name: "n", Kind: board.ChannelNtfy, Settings: map[string]string{"url": "https://ntfy.sh/"}}, "names no topic"},
		{board.Channel{Name: "m", Kind: board.ChannelEmail, Settings: map[string]string{"host": "smtp.example.com:587"}}, "needs --smtp host:port, --from and --to"},
		{board.Channel{Name: "m", Kind: board.ChannelEmail, Settings: map[string]string{"host": "smtps://smtp.example.com", "from": "a@b", "to": "c@d"}}, "without a scheme"},
		{board.Channel{Name: "bad name", Kind: board.ChannelDesktop}, "without spaces"},
	}
	for _, tc := range cases {
		err := notify.Check(tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%s %v) = %v; want %q", tc.c.Kind, tc.c.Settings, err, tc.want)
		}
	}
	ok := board.Channel{Name: "w", Kind: board.ChannelWebhook, Settings: map[string]string{"url": "https://example.com/h", "secret": "k"}}
	if err := notify.Check(ok); err != nil {
		t.Errorf("Check(valid webhook) = %v", err)
	}
}

// TestSecretsAndTarget: a channel's secrets are listed for the redactor,
// and its target shows none of them.
func TestSecretsAndTarget(t *testing.T) {
	slack := board.Channel{Kind: board.ChannelSlack, Settings: map[string]string{"url": "https://hooks.slack.com/services/T1/B2/abcdefSECRET"}}
	hook := board.Channel{Kind: board.ChannelWebhook, Settings: map[string]string{"url": "https://bob:hunter2@example.com/h", "secret": "s3cret"}}
	if got := notify.Target(slack); strings.Contains(got, "abcdef") || !strings.Contains(got, "hooks.slack.com") {
		t.Errorf("Target(slack) = %q", got)
	}
	if got := notify.Target(hook); strings.Contains(got, "hunter2") || !strings.Contains(got, "example.com/h") {
		t.Errorf("Target(webhook) = %q", got)
	}
	all := strings.Join(append(notify.Secrets(slack), notify.Secrets(hook)...), " ")
	for _, s := range []string{"abcdefSECRET", "hunter2", "s3cret"} {
		if !strings.Contains(all, s) {
			t.Errorf("Secrets misses %q: %s", s, all)
		}
	}
}

// TestDesktopAbsent: without a notifier the desktop channel fails at once
// and says what to install.
func TestDesktopAbsent(t *testing.T) {
	s, err := notify.New(board.Channel{Name: "d", Kind: board.ChannelDesktop},
		notify.Options{LookPath: func(string) (string, error) { return "", errors.New("not found") }})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(t.Context(), notify.TestMessage(time.Now()))
	if err == nil || !notify.IsPermanent(err) || !strings.Contains(err.Error(), "no desktop notifier") && !strings.Contains(err.Error(), "Windows") {
		t.Errorf("Send = %v", err)
	}
}

// TestStatusClasses: 429 and 5xx are retried, other 4xx are permanent.
func TestStatusClasses(t *testing.T) {
	for status, perm := range map[int]bool{http.StatusTooManyRequests: false, http.StatusServiceUnavailable: false,
		http.StatusBadRequest: true, http.StatusForbidden: true, http.StatusNotFound: true} {
		rcv := newReceiver(t, status)
		err := sendTest(t, board.Channel{Name: "d", Kind: board.ChannelDiscord, Settings: map[string]string{"url": rcv.URL}})
		if err == nil || notify.IsPermanent(err) != perm {
			t.Errorf("HTTP %d: %v; want permanent %v", status, err, perm)
		}
	}
}
