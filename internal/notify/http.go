package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// SignatureHeader carries the webhook body's HMAC-SHA256 under the
// channel's secret, as "sha256=" and the hex digest.
const SignatureHeader = "X-Bonsai-Signature"

// Sign returns the X-Bonsai-Signature value of body under secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// post sends body to u and classifies the answer: 2xx is success; 408,
// 429 and 5xx are worth another attempt; any other status is permanent.
// The request's URL never appears in an error, since for Slack and
// Discord it is the secret.
func post(ctx context.Context, o Options, what, u string, body []byte, header http.Header) error {
	ctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return permanent("%s: the URL is not usable", what)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "bonsai-notify")
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := o.client().Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // drop the URL
		}
		return fmt.Errorf("%s: %v", what, err)
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	msg := fmt.Sprintf("%s answered HTTP %d", what, resp.StatusCode)
	if s := strings.TrimSpace(string(snippet)); s != "" {
		msg += ": " + strings.Join(strings.Fields(s), " ")
	}
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return permanent("%s (is the URL right? the webhook may have been deleted)", msg)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return permanent("%s (check the channel's token or secret)", msg)
	case resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("%s", msg)
	}
	return permanent("%s", msg)
}

// webhook posts the message as JSON, signed with the channel's secret.
type webhook struct {
	url, secret string
	o           Options
}

func (w *webhook) Send(ctx context.Context, m Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return permanent("webhook: %v", err)
	}
	h := http.Header{}
	h.Set(SignatureHeader, Sign(w.secret, body))
	h.Set("X-Bonsai-Event", string(m.Kind))
	if m.ID != 0 {
		h.Set("X-Bonsai-Delivery", strconv.FormatInt(m.ID, 10))
	}
	return post(ctx, w.o, "the webhook", w.url, body, h)
}

// ntfy publishes to a topic with ntfy's JSON publishing: the message goes
// to the server's root URL with the topic in the body.
type ntfy struct {
	url, token string
	o          Options
}

// ntfyTopic splits a topic URL (https://ntfy.sh/my-topic) into the
// server's URL and the topic.
func ntfyTopic(raw string) (string, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", permanent("ntfy URL: %v", err)
	}
	p := strings.Trim(u.Path, "/")
	i := strings.LastIndex(p, "/")
	topic := p[i+1:]
	if topic == "" {
		return "", "", permanent("ntfy URL %q names no topic: use the topic's URL, such as https://ntfy.sh/my-topic", Redact(raw))
	}
	u.Path = "/" + p[:max(i, 0)]
	return strings.TrimSuffix(u.String(), "/"), topic, nil
}

func (n *ntfy) Send(ctx context.Context, m Message) error {
	server, topic, err := ntfyTopic(n.url)
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string]any{"topic": topic, "title": m.Subject, "message": m.Body,
		"tags": []string{ntfyTag(m)}, "priority": ntfyPriority(m)})
	if err != nil {
		return permanent("ntfy: %v", err)
	}
	h := http.Header{}
	if n.token != "" {
		h.Set("Authorization", "Bearer "+n.token)
	}
	return post(ctx, n.o, "ntfy", server, body, h)
}

func ntfyTag(m Message) string {
	switch m.Kind {
	case "question", "approval":
		return "question"
	case "review":
		return "white_check_mark"
	case "test":
		return "bell"
	}
	return "warning"
}

func ntfyPriority(m Message) int {
	switch m.Kind {
	case "question", "approval", "blocked":
		return 4
	}
	return 3
}

// slack posts to a Slack incoming webhook: {"text": …} in Slack's mrkdwn.
type slack struct {
	url string
	o   Options
}

func (s *slack) Send(ctx context.Context, m Message) error {
	text := "*" + slackEscape.Replace(m.Subject) + "*\n" + slackEscape.Replace(m.plainText())
	if len(m.Attachments) > 0 {
		text += "\n\n" + linkList(m, slackLink)
	}
	body, err := json.Marshal(map[string]any{"text": text})
	if err != nil {
		return permanent("slack: %v", err)
	}
	return post(ctx, s.o, "Slack", s.url, body, nil)
}

// discord posts to a Discord webhook: {"content": …}, at most 2000
// characters, mentions off.
type discord struct {
	url string
	o   Options
}

func (d *discord) Send(ctx context.Context, m Message) error {
	content := "**" + m.Subject + "**\n" + m.plainText()
	if len(m.Attachments) > 0 {
		content += "\n\n" + linkList(m, discordLink)
	}
	if r := []rune(content); len(r) > 2000 {
		content = string(r[:1999]) + "…"
	}
	body, err := json.Marshal(map[string]any{"content": content, "username": "Bonsai",
		"allowed_mentions": map[string]any{"parse": []string{}}})
	if err != nil {
		return permanent("discord: %v", err)
	}
	return post(ctx, d.o, "Discord", d.url, body, nil)
}
