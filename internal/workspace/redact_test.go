package workspace_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/workspace"
)

// TestProvider_RepoErrorHidesCredentials clones from a URL that carries an
// access token, on a port where nothing answers: the error, which the
// heartbeat logs and posts on the ticket the agent reads, must not hold
// the token.
func TestProvider_RepoErrorHidesCredentials(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	for _, repo := range []string{
		"https://x-access-token:ghp_SECRET123@" + addr + "/org/repo.git",
		"http://ghp_SECRET123@" + addr + "/org/repo.git",
	} {
		p, _, _ := newProvider(t)
		_, err := p.Prepare(context.Background(), project(repo), ticket(1, "x"))
		if err == nil {
			t.Fatalf("Prepare(%s) succeeded", repo)
		}
		if msg := err.Error(); strings.Contains(msg, "SECRET123") || !strings.Contains(msg, addr) {
			t.Errorf("error = %q, want the address without the token", msg)
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"clone https://u:tok@host/r.git: fatal: 'https://u:tok@host/r.git' not found": "clone https://***@host/r.git: fatal: 'https://***@host/r.git' not found",
		"ssh://git@host:22/r.git":       "ssh://***@host:22/r.git",
		"git@github.com:org/r.git":      "git@github.com:org/r.git",
		"/home/me/src/r":                "/home/me/src/r",
		"see https://host/a@b for help": "see https://host/a@b for help",
	} {
		if got := workspace.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
