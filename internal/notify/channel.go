package notify

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Sender delivers a message on one channel.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Options are what channels share.
type Options struct {
	// HTTP sends the webhook, ntfy, Slack and Discord requests; nil means
	// a client with Timeout.
	HTTP *http.Client
	// Timeout bounds one attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// TLS, when set, is the TLS configuration of SMTP's STARTTLS (tests
	// trust their own certificate with it); its ServerName is filled in.
	TLS *tls.Config
	// LookPath finds the desktop notifier; nil means exec.LookPath.
	LookPath func(string) (string, error)
}

// DefaultTimeout bounds one delivery attempt.
const DefaultTimeout = 10 * time.Second

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

func (o Options) client() *http.Client {
	if o.HTTP != nil {
		return o.HTTP
	}
	return &http.Client{Timeout: o.timeout()}
}

// PermanentError is a failure that another attempt would repeat: a
// refused URL, a webhook that does not exist, a missing notifier. The
// delivery loop marks the notification failed at once.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

func permanent(format string, args ...any) error {
	return &PermanentError{Err: fmt.Errorf(format, args...)}
}

// IsPermanent reports whether err is a PermanentError.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}

// The settings keys.
const (
	KeyURL      = "url"
	KeySecret   = "secret"   // webhook: the HMAC key
	KeyToken    = "token"    // ntfy: an access token
	KeyHost     = "host"     // email: the SMTP server, host:port
	KeyFrom     = "from"     // email: the sender
	KeyTo       = "to"       // email: recipients, comma-separated
	KeyUser     = "username" // email: the SMTP login
	KeyPassword = "password" // email: the SMTP password
)

// New returns the sender of channel c, checking its settings.
func New(c board.Channel, o Options) (Sender, error) {
	if err := Check(c); err != nil {
		return nil, err
	}
	s := c.Settings
	switch c.Kind {
	case board.ChannelWebhook:
		return &webhook{url: s[KeyURL], secret: s[KeySecret], o: o}, nil
	case board.ChannelNtfy:
		return &ntfy{url: s[KeyURL], token: s[KeyToken], o: o}, nil
	case board.ChannelSlack:
		return &slack{url: s[KeyURL], o: o}, nil
	case board.ChannelDiscord:
		return &discord{url: s[KeyURL], o: o}, nil
	case board.ChannelEmail:
		return &email{host: s[KeyHost], from: s[KeyFrom], to: splitList(s[KeyTo]), user: s[KeyUser], password: s[KeyPassword], o: o}, nil
	case board.ChannelDesktop:
		return &desktop{o: o}, nil
	}
	return nil, permanent("unknown channel kind %q", c.Kind)
}

// Check checks channel c: its common fields and the settings its kind
// needs. Its errors say what to change.
func Check(c board.Channel) error {
	if err := c.Validate(); err != nil {
		return err
	}
	s := c.Settings
	switch c.Kind {
	case board.ChannelWebhook:
		if err := checkURL(s[KeyURL], "a webhook"); err != nil {
			return err
		}
		if s[KeySecret] == "" {
			return permanent("a webhook needs a secret to sign its requests: pipe one in with --secret-stdin (e.g. openssl rand -hex 32)")
		}
	case board.ChannelNtfy:
		if err := checkURL(s[KeyURL], "ntfy (the topic's URL, such as https://ntfy.sh/my-topic)"); err != nil {
			return err
		}
		if _, _, err := ntfyTopic(s[KeyURL]); err != nil {
			return err
		}
	case board.ChannelSlack, board.ChannelDiscord:
		if err := checkURL(s[KeyURL], string(c.Kind)+" (its incoming webhook URL)"); err != nil {
			return err
		}
	case board.ChannelEmail:
		if s[KeyHost] == "" || s[KeyFrom] == "" || len(splitList(s[KeyTo])) == 0 {
			return permanent("email needs --smtp host:port, --from and --to")
		}
		if strings.Contains(s[KeyHost], "://") {
			return permanent("--smtp %q: give host:port, such as smtp.example.com:587, without a scheme", s[KeyHost])
		}
		if s[KeyPassword] != "" && s[KeyUser] == "" {
			return permanent("email: a password needs --user")
		}
	}
	return nil
}

// checkURL refuses a URL that is not http(s) with a host.
func checkURL(raw, what string) error {
	if raw == "" {
		return permanent("%s needs a URL: give --url", what)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return permanent("URL %q for %s: want an http:// or https:// URL with a host", Redact(raw), what)
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Secrets returns the secret values of c's settings, for a redactor: the
// webhook secret, the ntfy token, the SMTP password, the Slack and
// Discord URLs (their path is the key) and any password inside a URL.
func Secrets(c board.Channel) []string {
	var out []string
	for _, k := range []string{KeySecret, KeyToken, KeyPassword} {
		if v := c.Settings[k]; v != "" {
			out = append(out, v)
		}
	}
	if u := c.Settings[KeyURL]; u != "" {
		if c.Kind == board.ChannelSlack || c.Kind == board.ChannelDiscord {
			out = append(out, u)
			if p, err := url.Parse(u); err == nil && len(p.Path) > 1 {
				out = append(out, p.Path)
			}
		}
		if p, err := url.Parse(u); err == nil && p.User != nil {
			if pw, ok := p.User.Password(); ok {
				out = append(out, pw)
			}
		}
	}
	return out
}

// Target says where c sends, without its secrets: the URL's scheme and
// host (and, for a webhook or ntfy, its path), the SMTP server and
// recipients, or "desktop".
func Target(c board.Channel) string {
	s := c.Settings
	switch c.Kind {
	case board.ChannelEmail:
		return s[KeyTo] + " via " + s[KeyHost]
	case board.ChannelDesktop:
		return "this machine's desktop"
	case board.ChannelSlack, board.ChannelDiscord:
		if u, err := url.Parse(s[KeyURL]); err == nil {
			return u.Scheme + "://" + u.Host + "/…" + last4(u.Path)
		}
		return "…"
	}
	return Redact(s[KeyURL])
}

// Redact drops the password of a URL.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "…"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// last4 returns the last four characters of s.
func last4(s string) string {
	if len(s) <= 4 {
		return ""
	}
	return s[len(s)-4:]
}
