package engine_test

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// mitm is an HTTP proxy that answers CONNECT itself: it ends the TLS of
// each tunnel with a certificate of its own test CA (which the CLIs are
// told to trust), records each request it reads there and hands it to
// upstream, a fake model server. It shows what a CLI sends to a
// provider's real host name, headers included.
type mitm struct {
	URL    string // the proxy's http://127.0.0.1:port
	CAFile string // the CA's certificate, PEM

	ca       *x509.Certificate
	key      *ecdsa.PrivateKey
	upstream *url.URL

	mu   sync.Mutex
	seen []seenRequest
}

// seenRequest is a request a CLI sent through the proxy.
type seenRequest struct {
	Host, Path string
	Header     http.Header
}

// newMITM starts a proxy in front of upstream, with its CA's
// certificate written into dir (which the CLI must see).
func newMITM(t *testing.T, upstream, dir string) *mitm {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "bonsai test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	m := &mitm{ca: ca, key: key, upstream: u, CAFile: filepath.Join(dir, "bonsai-test-ca.pem")}
	if err := os.WriteFile(m.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	m.URL = "http://" + ln.Addr().String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go m.tunnel(c)
		}
	}()
	return m
}

// tunnel answers one CONNECT and serves the requests sent through it.
func (m *mitm) tunnel(c net.Conn) {
	defer c.Close()
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil || req.Method != http.MethodConnect {
		return
	}
	host := req.URL.Hostname()
	if _, err := c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		return
	}
	tc := tls.Server(c, &tls.Config{NextProtos: []string{"http/1.1"}, GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		return m.leaf(host)
	}})
	br := bufio.NewReader(tc)
	tr := &http.Transport{Proxy: nil}
	for {
		r, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		m.mu.Lock()
		m.seen = append(m.seen, seenRequest{Host: host, Path: r.URL.Path, Header: r.Header.Clone()})
		m.mu.Unlock()
		r.URL.Scheme, r.URL.Host, r.Host, r.RequestURI = m.upstream.Scheme, m.upstream.Host, m.upstream.Host, ""
		resp, err := tr.RoundTrip(r)
		if err != nil {
			return
		}
		err = resp.Write(tc)
		resp.Body.Close()
		if err != nil {
			return
		}
	}
}

// leaf is a certificate for host signed by the proxy's CA.
func (m *mitm) leaf(host string) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: host},
		DNSNames: []string{host}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, m.ca, &key.PublicKey, m.key)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der, m.ca.Raw}, PrivateKey: key}, nil
}

// requests returns the requests seen so far, as "host path" with the
// header named h.
func (m *mitm) requests() []seenRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]seenRequest(nil), m.seen...)
}

// describe lists the requests for a failure message.
func describe(rs []seenRequest) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.Host + r.Path + "\n")
	}
	return b.String()
}
