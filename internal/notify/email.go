package notify

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/smtp"
	"net/textproto"
	"strings"
	"time"
)

// email sends the message over SMTP, always inside STARTTLS: a server
// that does not offer it is refused rather than sent a password or a
// message in the clear.
type email struct {
	host, from, user, password string
	to                         []string
	o                          Options
}

func (e *email) Send(ctx context.Context, m Message) error {
	addr := e.host
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, "587")
	}
	serverName, _, _ := net.SplitHostPort(addr)
	deadline := time.Now().Add(e.o.timeout())
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	var dialer net.Dialer
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	conn, err := dialer.DialContext(dctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("SMTP server %s: %v", addr, err)
	}
	defer conn.Close()
	conn.SetDeadline(deadline)
	c, err := smtp.NewClient(conn, serverName)
	if err != nil {
		return smtpError(addr, "greeting", err)
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return smtpError(addr, "EHLO", err)
	}
	if ok, _ := c.Extension("STARTTLS"); !ok {
		return permanent("SMTP server %s does not offer STARTTLS; Bonsai sends mail only encrypted (use the server's submission port, usually 587)", addr)
	}
	cfg := &tls.Config{ServerName: serverName, MinVersion: tls.VersionTLS12}
	if e.o.TLS != nil {
		cfg = e.o.TLS.Clone()
		cfg.ServerName = serverName
	}
	if err := c.StartTLS(cfg); err != nil {
		return permanent("SMTP server %s: STARTTLS failed: %v", addr, err)
	}
	if e.user != "" {
		if err := c.Auth(smtp.PlainAuth("", e.user, e.password, serverName)); err != nil {
			return smtpError(addr, "login", err)
		}
	}
	if err := c.Mail(e.from); err != nil {
		return smtpError(addr, "MAIL FROM", err)
	}
	for _, to := range e.to {
		if err := c.Rcpt(to); err != nil {
			return smtpError(addr, "RCPT TO "+to, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return smtpError(addr, "DATA", err)
	}
	if _, err := w.Write(e.compose(m)); err != nil {
		return smtpError(addr, "DATA", err)
	}
	if err := w.Close(); err != nil {
		return smtpError(addr, "DATA", err)
	}
	return c.Quit()
}

// compose writes the message with its headers, lines ending in CRLF.
func (e *email) compose(m Message) []byte {
	var b strings.Builder
	id := make([]byte, 12)
	rand.Read(id)
	domain := "bonsai.local"
	if _, d, ok := strings.Cut(e.from, "@"); ok {
		domain = strings.Trim(d, "> ")
	}
	hdr := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	hdr("From", e.from)
	hdr("To", strings.Join(e.to, ", "))
	hdr("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	hdr("Date", m.CreatedAt.Format(time.RFC1123Z))
	hdr("Message-ID", "<"+hex.EncodeToString(id)+"@"+domain+">")
	hdr("MIME-Version", "1.0")
	hdr("Content-Type", "text/plain; charset=utf-8")
	hdr("Content-Transfer-Encoding", "8bit")
	if m.Kind != "" {
		hdr("X-Bonsai-Event", string(m.Kind))
	}
	b.WriteString("\r\n")
	for _, line := range strings.Split(strings.ReplaceAll(m.Body, "\r\n", "\n"), "\n") {
		b.WriteString(line + "\r\n")
	}
	return []byte(b.String())
}

// smtpError classifies an SMTP failure: a 5xx reply is permanent (the
// server refuses), anything else is worth another attempt.
func smtpError(addr, step string, err error) error {
	var te *textproto.Error
	if errors.As(err, &te) && te.Code >= 500 {
		return permanent("SMTP server %s refused %s: %d %s", addr, step, te.Code, te.Msg)
	}
	return fmt.Errorf("SMTP server %s, %s: %v", addr, step, err)
}
