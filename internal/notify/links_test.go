package notify_test

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
)

// hostileName is a file name with the characters each channel's format
// gives meaning to: HTML, Slack's mrkdwn, Discord's Markdown.
const hostileName = "shot <b>&*_[x](y)|@here`#.png"

// askWithFile has the agent ask a question with a picture attached to it,
// beside a file of the ticket's own that the question did not bring.
func askWithFile(t *testing.T, e *env) (board.Attachment, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.AddAttachment(t.Context(), e.tk.Ref(), board.NewAttachment{Name: "older.log", Data: []byte("not this one"),
		AuthorType: board.Human, AuthorName: "ana"}, board.DefaultAttachmentLimits); err != nil {
		t.Fatal(err)
	}
	c, err := e.st.AddComment(t.Context(), e.tk.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "agent",
		Kind: board.KindQuestion, Content: "Which layout, this one?"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.st.AddAttachment(t.Context(), e.tk.Ref(), board.NewAttachment{CommentID: c.ID, Name: hostileName, Data: b.Bytes(),
		AuthorType: board.Agent, AuthorName: "agent"}, board.DefaultAttachmentLimits)
	if err != nil {
		t.Fatal(err)
	}
	return a, b.Bytes()
}

// fakeNotifySend is a notify-send that writes its arguments, one a line,
// to a file.
func fakeNotifySend(t *testing.T) (lookPath func(string) (string, error), args func() string) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "args")
	prog := filepath.Join(dir, "notify-send")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return func(string) (string, error) { return prog, nil }, func() string {
		b, _ := os.ReadFile(out)
		return string(b)
	}
}

// TestNotificationsLinkAttachments: a question with a picture notifies
// every channel with a link to it on the configured public address, the
// name escaped in each format (Slack's mrkdwn, Discord's Markdown; plain
// in the webhook's JSON, ntfy, email and the desktop), the ticket's other
// file not linked and no byte of the picture in any message.
func TestNotificationsLinkAttachments(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the desktop channel runs notify-send on Linux")
	}
	e := newEnv(t)
	rcv := newReceiver(t)
	cert, pool := testCert(t)
	smtp := newSMTPServer(t, cert)
	lookPath, desktopArgs := fakeNotifySend(t)
	for _, c := range []board.Channel{
		{Name: "hook", Kind: board.ChannelWebhook, Settings: map[string]string{"url": rcv.URL + "/bonsai", "secret": "k"}},
		{Name: "slack", Kind: board.ChannelSlack, Settings: map[string]string{"url": rcv.URL + "/services/T/B/x"}},
		{Name: "discord", Kind: board.ChannelDiscord, Settings: map[string]string{"url": rcv.URL + "/api/webhooks/1/x"}},
		{Name: "ntfy", Kind: board.ChannelNtfy, Settings: map[string]string{"url": rcv.URL + "/alerts"}},
		emailChannel(smtp.addr),
		{Name: "desk", Kind: board.ChannelDesktop},
	} {
		e.channel(c)
	}
	a, pic := askWithFile(t, e)
	d := e.deliverer(e.st, notify.Options{TLS: &tls.Config{RootCAs: pool}, LookPath: lookPath})
	d.Files, d.BaseURL = e.st, "https://bonsai.example.com/"
	if res, err := d.Deliver(t.Context()); err != nil || res != (notify.Result{Sent: 6}) {
		t.Fatalf("deliver = %+v, %v (%+v)", res, err, e.list())
	}
	link := "https://bonsai.example.com/p/demo/1/attachments/" + a.ID
	size := board.HumanSize(a.Size)
	got := map[string]string{}
	for _, r := range rcv.requests() {
		got[r.path] = string(r.body)
	}
	smtp.mu.Lock()
	got["email"] = smtp.data
	smtp.mu.Unlock()
	got["desktop"] = desktopArgs()

	hook := decode(t, []byte(got["/bonsai"]))
	files, _ := hook["attachments"].([]any)
	if len(files) != 1 {
		t.Fatalf("webhook attachments = %v", hook["attachments"])
	}
	f := files[0].(map[string]any)
	if f["url"] != link || f["name"] != hostileName || f["mediaType"] != board.MediaPNG || f["id"] != a.ID {
		t.Errorf("webhook attachment = %v", f)
	}
	if body, _ := hook["body"].(string); !strings.Contains(body, "Attached:\n- "+hostileName+" ("+size+"): "+link) {
		t.Errorf("webhook body = %q", body)
	}
	slack, _ := decode(t, []byte(got["/services/T/B/x"]))["text"].(string)
	if want := "<" + link + "|shot &lt;b&gt;&amp;*_[x](y)|@here`#.png (" + size + ")>"; !strings.Contains(slack, want) {
		t.Errorf("slack text = %q, want %q in it", slack, want)
	}
	discord, _ := decode(t, []byte(got["/api/webhooks/1/x"]))["content"].(string)
	if want := `[shot \<b\>&\*\_\[x\]\(y\)\|\@here\` + "`" + `\#.png](<` + link + `>)`; !strings.Contains(discord, want) {
		t.Errorf("discord content = %q, want %q in it", discord, want)
	}
	ntfy, _ := decode(t, []byte(got["/"]))["message"].(string)
	for name, text := range map[string]string{"ntfy": ntfy, "email": got["email"], "desktop": got["desktop"]} {
		if !strings.Contains(text, hostileName+" ("+size+"): "+link) {
			t.Errorf("%s = %q: no link to the picture", name, text)
		}
	}
	for name, text := range got {
		if strings.Contains(text, "older.log") || strings.Contains(text, base64.StdEncoding.EncodeToString(pic)) || strings.Contains(text, string(pic[:8])) {
			t.Errorf("%s carries the other file or the picture's bytes:\n%s", name, text)
		}
	}
}

// TestNotificationsNameAttachmentsWithoutPublicURL: without
// forge.bonsaiURL the files are named, with how to see them, and no link.
func TestNotificationsNameAttachmentsWithoutPublicURL(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t)
	e.channel(board.Channel{Name: "hook", Kind: board.ChannelWebhook, Settings: map[string]string{"url": rcv.URL + "/bonsai", "secret": "k"}})
	askWithFile(t, e)
	d := e.deliverer(e.st, notify.Options{})
	d.Files = e.st
	if res, err := d.Deliver(t.Context()); err != nil || res != (notify.Result{Sent: 1}) {
		t.Fatalf("deliver = %+v, %v", res, err)
	}
	m := decode(t, rcv.requests()[0].body)
	body, _ := m["body"].(string)
	if !strings.Contains(body, "- "+hostileName+" (") || !strings.Contains(body, "bonsai ticket show demo#1") ||
		strings.Contains(body, "http") || strings.Contains(string(rcv.requests()[0].body), `"url"`) {
		t.Errorf("body = %q\n%s", body, rcv.requests()[0].body)
	}
}
