//go:build darwin

package seatbelt

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/executortest"
)

// requireSeatbelt skips when sandbox-exec is missing, except on CI.
func requireSeatbelt(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

func open(t testing.TB, root string, o Options) *Executor {
	t.Helper()
	if o.Home == "" {
		o.Home = filepath.Join(t.TempDir(), "home")
	}
	s, err := New(root, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func shell(t *testing.T, s executor.Executor, script string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	x, err := s.Shell(context.Background(), script, executor.RunOptions{Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	return x.Code, out.String()
}

func TestContract(t *testing.T) {
	requireSeatbelt(t)
	executortest.Run(t, func(t *testing.T, root string) executor.Executor {
		return open(t, root, Options{})
	})
}

// host is a made-up layout: a home, a data directory with a web token, a
// clone with the workspace as its worktree, another worktree, and a
// directory Options.Hide names.
type host struct{ home, data, gitDir, root, elsewhere, cache string }

func newHost(t *testing.T) host {
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	h := host{home: filepath.Join(base, "home"), data: filepath.Join(base, "data"), elsewhere: filepath.Join(base, "elsewhere")}
	clone := filepath.Join(h.data, "repos", "r")
	h.gitDir = filepath.Join(clone, ".git")
	h.root = filepath.Join(h.data, "workspaces", "w")
	h.cache = filepath.Join(h.data, "cache", "go")
	for _, d := range []string{h.home, clone, filepath.Join(h.data, "workspaces", "other"), h.elsewhere} {
		must(t, os.MkdirAll(d, 0o755))
	}
	for p, c := range map[string]string{
		filepath.Join(h.home, "secret.txt"):                       "home secret\n",
		filepath.Join(h.home, ".bashrc"):                          "# rc\n",
		filepath.Join(h.data, "web-token"):                        "token secret\n",
		filepath.Join(h.data, "workspaces", "other", "notes.txt"): "other worktree secret\n",
		filepath.Join(h.elsewhere, "x.txt"):                       "elsewhere secret\n",
		filepath.Join(clone, "README"):                            "readme\n",
	} {
		must(t, os.WriteFile(p, []byte(c), 0o644))
	}
	git(t, clone, "init", "-q", "-b", "main")
	git(t, clone, "add", ".")
	git(t, clone, "commit", "-q", "-m", "first")
	git(t, clone, "worktree", "add", "-q", "-b", "w", h.root)
	return h
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (h host) open(t *testing.T, n Network, port int) *Executor {
	return open(t, h.root, Options{Home: h.home, DataDir: h.data, GitDir: h.gitDir, Hide: []string{h.elsewhere},
		Caches: map[string]string{"GOCACHE": h.cache}, Network: n, ProxyPort: port})
}

func fileHas(p, s string) bool {
	b, err := os.ReadFile(p)
	return err == nil && strings.Contains(string(b), s)
}

func listen(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

func connect(port int) string {
	return fmt.Sprintf("echo hi > /dev/tcp/127.0.0.1/%d && echo CONNECTED", port)
}

// TestAttacks runs each attack under the sandbox and checks, from the
// output and the host, that it did not reach its target.
func TestAttacks(t *testing.T) {
	requireSeatbelt(t)
	h := newHost(t)
	port := listen(t)
	s := h.open(t, NetworkNone, 0)
	attacks := []struct {
		name    string
		script  string
		reached func(out string) bool
	}{
		{"read a file in the home", "cat " + h.home + "/secret.txt", func(out string) bool { return strings.Contains(out, "home secret") }},
		{"list the home", "ls -a " + h.home, func(out string) bool { return strings.Contains(out, "secret.txt") }},
		{"read the web token", "cat " + h.data + "/web-token", func(out string) bool { return strings.Contains(out, "token secret") }},
		{"read another worktree", "cat " + h.data + "/workspaces/other/notes.txt", func(out string) bool { return strings.Contains(out, "other worktree secret") }},
		{"read a hidden directory", "cat " + h.elsewhere + "/x.txt", func(out string) bool { return strings.Contains(out, "elsewhere secret") }},
		{"read through a symlink", "ln -s " + h.home + "/secret.txt leak && cat leak", func(out string) bool { return strings.Contains(out, "home secret") }},
		{"write ~/.bashrc", "echo evil >> " + h.home + "/.bashrc", func(string) bool { return fileHas(filepath.Join(h.home, ".bashrc"), "evil") }},
		{"write the clone's config", "printf '[alias]\\n\\tevil = !true\\n' >> " + h.gitDir + "/config", func(string) bool { return fileHas(filepath.Join(h.gitDir, "config"), "evil") }},
		{"write a hook", "printf '#!/bin/sh\\necho evil\\n' > " + h.gitDir + "/hooks/pre-commit", func(string) bool { return fileHas(filepath.Join(h.gitDir, "hooks", "pre-commit"), "evil") }},
		{"rename .git away", "mv " + h.gitDir + " " + h.gitDir + ".old", func(string) bool { _, err := os.Stat(h.gitDir + ".old"); return err == nil }},
		{"write into the data directory", "echo evil > " + h.data + "/evil", func(string) bool { return fileHas(filepath.Join(h.data, "evil"), "evil") }},
		{"connect to the host's loopback", connect(port), func(out string) bool { return strings.Contains(out, "CONNECTED") }},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			if _, out := shell(t, s, a.script); a.reached(out) {
				t.Errorf("reached: %s", out)
			}
		})
	}
}

// TestWorks checks what must keep working: a commit from the worktree,
// the cache, the private temporary directory.
func TestWorks(t *testing.T) {
	requireSeatbelt(t)
	h := newHost(t)
	s := h.open(t, NetworkNone, 0)
	script := `set -e
echo x > f && git add f && git -c user.name=t -c user.email=t@e commit -q -m second
echo c > "$GOCACHE/c" && echo t > "$TMPDIR/t" && echo h > "$HOME/h"
git log --oneline | wc -l`
	code, out := shell(t, s, script)
	if code != 0 || !strings.Contains(out, "2") {
		t.Fatalf("exit %d: %s\n%s", code, out, s.Profile())
	}
	if !fileHas(filepath.Join(h.cache, "c"), "c") {
		t.Fatal("the cache write did not reach the host")
	}
}

// TestProxy checks that NetworkProxy reaches the proxy's port and no other.
func TestProxy(t *testing.T) {
	requireSeatbelt(t)
	h := newHost(t)
	proxy, other := listen(t), listen(t)
	s := h.open(t, NetworkProxy, proxy)
	if _, out := shell(t, s, connect(proxy)+"; echo $HTTPS_PROXY"); !strings.Contains(out, "CONNECTED") || !strings.Contains(out, fmt.Sprint(proxy)) {
		t.Errorf("the proxy is unreachable: %s", out)
	}
	if _, out := shell(t, s, connect(other)); strings.Contains(out, "CONNECTED") {
		t.Errorf("reached another port: %s", out)
	}
}

// TestReadOnlyCommand: a read-only command cannot write the workspace,
// while the next, writable one can, and the read-only one may still
// write its private directory.
func TestReadOnlyCommand(t *testing.T) {
	requireSeatbelt(t)
	root := t.TempDir()
	s := open(t, root, Options{})
	var out bytes.Buffer
	x, err := s.Shell(context.Background(), `touch bonsai-marker; echo x > "$TMPDIR/ok" && cat "$TMPDIR/ok"`, executor.RunOptions{Output: &out, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "bonsai-marker")); err == nil || !strings.Contains(out.String(), "x") {
		t.Fatalf("read-only command: exit %d, %q; the marker was written or the private directory was not", x.Code, out.String())
	}
	if code, out := shell(t, s, "touch bonsai-marker"); code != 0 {
		t.Fatalf("writable command: exit %d: %s", code, out)
	}
}
