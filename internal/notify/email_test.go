package notify_test

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"math/big"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
)

// testCert makes a self-signed certificate for 127.0.0.1 and the pool
// that trusts it.
func testCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "bonsai test smtp"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// smtpServer is a small real SMTP server: EHLO, STARTTLS, AUTH PLAIN,
// MAIL, RCPT, DATA, QUIT, one session at a time.
type smtpServer struct {
	addr       string
	cert       tls.Certificate
	noTLS      bool // do not offer STARTTLS
	refuseRcpt bool // answer RCPT with 550

	mu       sync.Mutex
	log      []string // commands, in order, "TLS" when the handshake ended
	auth     string   // the decoded AUTH PLAIN response
	data     string
	tlsBound bool // whether MAIL came inside TLS
}

func newSMTPServer(t *testing.T, cert tls.Certificate) *smtpServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	s := &smtpServer{addr: l.Addr().String(), cert: cert}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.session(c)
		}
	}()
	return s
}

func (s *smtpServer) note(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, line)
}

func (s *smtpServer) session(c net.Conn) {
	defer c.Close()
	tp := textproto.NewConn(c)
	inTLS := false
	tp.PrintfLine("220 127.0.0.1 ESMTP test")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		s.note(strings.ToUpper(verb))
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			if !inTLS && !s.noTLS {
				tp.PrintfLine("250-127.0.0.1\r\n250 STARTTLS")
			} else {
				tp.PrintfLine("250-127.0.0.1\r\n250 AUTH PLAIN")
			}
		case "STARTTLS":
			tp.PrintfLine("220 go ahead")
			tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{s.cert}})
			if err := tc.Handshake(); err != nil {
				return
			}
			s.note("TLS")
			c, inTLS = tc, true
			tp = textproto.NewConn(tc)
		case "AUTH":
			_, b64, _ := strings.Cut(arg, " ")
			raw, _ := base64.StdEncoding.DecodeString(b64)
			s.mu.Lock()
			s.auth = string(raw)
			s.mu.Unlock()
			tp.PrintfLine("235 2.7.0 accepted")
		case "MAIL":
			s.mu.Lock()
			s.tlsBound = inTLS
			s.mu.Unlock()
			tp.PrintfLine("250 ok")
		case "RCPT":
			if s.refuseRcpt {
				tp.PrintfLine("550 5.1.1 no such user")
				continue
			}
			tp.PrintfLine("250 ok")
		case "DATA":
			tp.PrintfLine("354 go on")
			lines, err := tp.ReadDotLines()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.data = strings.Join(lines, "\n")
			s.mu.Unlock()
			tp.PrintfLine("250 queued")
		case "QUIT":
			tp.PrintfLine("221 bye")
			return
		default:
			tp.PrintfLine("502 unknown")
		}
	}
}

func emailChannel(addr string) board.Channel {
	return board.Channel{Name: "mail", Kind: board.ChannelEmail, Settings: map[string]string{
		notify.KeyHost: addr, notify.KeyFrom: "bonsai@example.com", notify.KeyTo: "dev@example.com, lead@example.com",
		notify.KeyUser: "bonsai", notify.KeyPassword: "pw"}}
}

// TestEmailSTARTTLS delivers a notification through the outbox to a real
// SMTP server that speaks STARTTLS with a test certificate: the password
// and the message travel only inside TLS.
func TestEmailSTARTTLS(t *testing.T) {
	cert, pool := testCert(t)
	srv := newSMTPServer(t, cert)
	e := newEnv(t)
	e.channel(emailChannel(srv.addr))
	e.ask("Which port, 8080 or 9090?")
	if res := e.deliver(notify.Options{TLS: &tls.Config{RootCAs: pool}}); res != (notify.Result{Sent: 1}) {
		t.Fatalf("pass = %+v (%+v)", res, e.list()[0])
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	got := strings.Join(srv.log, " ")
	if got != "EHLO STARTTLS TLS EHLO AUTH MAIL RCPT RCPT DATA QUIT" {
		t.Errorf("session = %s", got)
	}
	if srv.auth != "\x00bonsai\x00pw" || !srv.tlsBound {
		t.Errorf("auth %q, mail inside TLS %v", srv.auth, srv.tlsBound)
	}
	msg, err := textproto.NewReader(bufio.NewReader(strings.NewReader(srv.data + "\n"))).ReadMIMEHeader()
	if err != nil && !strings.Contains(srv.data, "\n\n") {
		t.Fatalf("message %q: %v", srv.data, err)
	}
	if msg.Get("From") != "bonsai@example.com" || msg.Get("To") != "dev@example.com, lead@example.com" ||
		!strings.Contains(msg.Get("Subject"), "demo#1") || msg.Get("X-Bonsai-Event") != "question" ||
		!strings.Contains(srv.data, "Which port, 8080 or 9090?") {
		t.Errorf("message = %q", srv.data)
	}
}

// TestEmailRefused: a server without STARTTLS, a certificate nobody
// trusts and a recipient the server refuses each fail at once, saying so.
func TestEmailRefused(t *testing.T) {
	cert, pool := testCert(t)
	cases := []struct {
		name  string
		setup func(*smtpServer)
		o     notify.Options
		want  string
	}{
		{"no STARTTLS", func(s *smtpServer) { s.noTLS = true }, notify.Options{TLS: &tls.Config{RootCAs: pool}}, "does not offer STARTTLS"},
		{"untrusted certificate", func(*smtpServer) {}, notify.Options{}, "STARTTLS failed"},
		{"recipient refused", func(s *smtpServer) { s.refuseRcpt = true }, notify.Options{TLS: &tls.Config{RootCAs: pool}}, "refused RCPT TO dev@example.com: 550"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSMTPServer(t, cert)
			tc.setup(srv)
			s, err := notify.New(emailChannel(srv.addr), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Send(t.Context(), notify.TestMessage(time.Now()))
			if err == nil || !notify.IsPermanent(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Send = %v; want a permanent error saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "pw") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

// TestEmailServerDown: nobody listening is worth another attempt.
func TestEmailServerDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s, _ := notify.New(emailChannel(addr), notify.Options{})
	if err := s.Send(t.Context(), notify.TestMessage(time.Now())); err == nil || notify.IsPermanent(err) {
		t.Errorf("Send to a closed port = %v; want an error worth retrying", err)
	}
}
