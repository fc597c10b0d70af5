package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// host is a made-up host layout: a home, a Bonsai data directory with a
// web token, a clone, the workspace (a worktree of the clone) and another
// worktree, plus a directory Options.Hide names. It lives under /var/tmp
// because the sandbox's private /tmp would hide a layout under /tmp for
// the wrong reason.
type host struct {
	base, home, data, gitDir, root, elsewhere string
}

func newHost(t *testing.T) host {
	t.Helper()
	parent := "/var/tmp"
	if _, err := os.Stat(parent); err != nil {
		t.Skip("no /var/tmp for a layout outside /tmp")
	}
	base, err := os.MkdirTemp(parent, "bonsai-sandbox-test-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	h := host{base: base, home: filepath.Join(base, "home"), data: filepath.Join(base, "data"), elsewhere: filepath.Join(base, "elsewhere")}
	clone := filepath.Join(h.data, "repos", "r")
	h.gitDir = filepath.Join(clone, ".git")
	h.root = filepath.Join(h.data, "workspaces", "w")
	for _, d := range []string{h.home, clone, filepath.Join(h.data, "workspaces", "other"), h.elsewhere} {
		must(t, os.MkdirAll(d, 0o755))
	}
	files := map[string]string{
		filepath.Join(h.home, "secret.txt"):                       "home secret\n",
		filepath.Join(h.home, ".bashrc"):                          "# rc\n",
		filepath.Join(h.data, "web-token"):                        "token secret\n",
		filepath.Join(h.data, "workspaces", "other", "notes.txt"): "other worktree secret\n",
		filepath.Join(h.elsewhere, "x.txt"):                       "elsewhere secret\n",
		filepath.Join(clone, "README"):                            "readme\n",
	}
	for p, c := range files {
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

func (h host) local(t *testing.T) executor.Executor {
	l, err := local.New(h.root, local.Options{})
	must(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

func (h host) sandbox(t *testing.T, network Network) executor.Executor {
	return open(t, h.root, Options{Network: network, Home: h.home, DataDir: h.data, GitDir: h.gitDir, Hide: []string{h.elsewhere}})
}

func fileHas(p, s string) bool {
	b, err := os.ReadFile(p)
	return err == nil && strings.Contains(string(b), s)
}

// attack is a command that reaches something of the host's; reached
// tells, from its output and the host, whether it did.
type attack struct {
	name    string
	script  func(h host) string
	reached func(h host, out string) bool
	// localBlocked: the local executor may already stop this one.
	localBlocked bool
}

func attacks(t *testing.T, port int) []attack {
	pid := os.Getpid()
	return []attack{
		{"read a file in the home",
			func(h host) string { return "cat " + h.home + "/secret.txt" },
			func(h host, out string) bool { return strings.Contains(out, "home secret") }, false},
		{"read the data directory's web token",
			func(h host) string { return "cat " + h.data + "/web-token" },
			func(h host, out string) bool { return strings.Contains(out, "token secret") }, false},
		{"read another worktree",
			func(h host) string { return "cat " + h.data + "/workspaces/other/notes.txt" },
			func(h host, out string) bool { return strings.Contains(out, "other worktree secret") }, false},
		{"read a hidden directory",
			func(h host) string { return "cat " + h.elsewhere + "/x.txt" },
			func(h host, out string) bool { return strings.Contains(out, "elsewhere secret") }, false},
		{"read the runtime's environment",
			func(h host) string { return "tr '\\0' '\\n' < /proc/" + strconv.Itoa(pid) + "/environ" },
			func(h host, out string) bool { return strings.Contains(out, "PATH=") },
			// local.New makes the runtime undumpable, which stops
			// this for a user without CAP_SYS_PTRACE (not root).
			os.Geteuid() != 0},
		{"write ~/.bashrc",
			func(h host) string { return "echo evil >> " + h.home + "/.bashrc" },
			func(h host, out string) bool { return fileHas(filepath.Join(h.home, ".bashrc"), "evil") }, false},
		{"write the clone's .git/config",
			func(h host) string { return "printf '[alias]\\n\\tevil = !true\\n' >> " + h.gitDir + "/config" },
			func(h host, out string) bool { return fileHas(filepath.Join(h.gitDir, "config"), "evil") }, false},
		{"write a hook of the clone",
			func(h host) string { return "printf '#!/bin/sh\\necho evil\\n' > " + h.gitDir + "/hooks/pre-commit" },
			func(h host, out string) bool { return fileHas(filepath.Join(h.gitDir, "hooks", "pre-commit"), "evil") }, false},
		{"point the worktree's metadata at a config of its own",
			func(h host) string { return "echo " + h.base + " > " + h.gitDir + "/worktrees/w/commondir" },
			func(h host, out string) bool {
				return fileHas(filepath.Join(h.gitDir, "worktrees", "w", "commondir"), h.base)
			}, false},
		{"point the clone back at another worktree",
			func(h host) string { return "echo " + h.base + "/.git > " + h.gitDir + "/worktrees/w/gitdir" },
			func(h host, out string) bool {
				return fileHas(filepath.Join(h.gitDir, "worktrees", "w", "gitdir"), h.base+"/.git")
			}, false},
		{"connect to the host's loopback",
			func(h host) string { return fmt.Sprintf("echo hi > /dev/tcp/127.0.0.1/%d && echo CONNECTED", port) },
			func(h host, out string) bool { return strings.Contains(out, "CONNECTED") }, false},
		{"leave a process running",
			func(h host) string {
				return detach(h)
			},
			func(h host, out string) bool { return survives(t, token(h)) }, false},
	}
}

// detach is a script that starts a process in a session of its own,
// out of the command's process group, and waits until it has left.
func detach(h host) string {
	up := ".up-" + token(h)
	return "setsid sh -c 'touch " + up + "; sleep 300; : " + token(h) + "' </dev/null >/dev/null 2>&1 & " +
		"while [ ! -e " + up + " ]; do sleep 0.01; done"
}

// token names a process left running by one host's attack.
func token(h host) string { return "bonsai-leftover-" + filepath.Base(h.base) }

// survives reports whether a process whose command line holds tok is
// still alive after a short grace for the kernel to finish killing a
// namespace, and kills those it finds.
func survives(t *testing.T, tok string) bool {
	var pids []int
	for i := 0; i < 20; i++ {
		if pids = withCmdline(tok); len(pids) == 0 {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	return true
}

func withCmdline(tok string) []int {
	ds, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range ds {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if bytes.Contains(b, []byte(tok)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestAttacks runs each attack through the local executor, where it must
// reach the host (else the case proves nothing), then through the
// sandbox, with no network and in proxy mode, where it must not.
func TestAttacks(t *testing.T) {
	t.Parallel()
	requireBwrap(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for _, a := range attacks(t, ln.Addr().(*net.TCPAddr).Port) {
		t.Run(a.name, func(t *testing.T) {
			for _, side := range []string{"local", "sandbox", "proxy"} {
				h := newHost(t)
				ex := h.local(t)
				switch side {
				case "sandbox":
					ex = h.sandbox(t, NetworkNone)
				case "proxy":
					ex = h.sandbox(t, NetworkProxy)
				}
				_, out := shell(t, ex, a.script(h))
				got := a.reached(h, out)
				if side == "local" && !got && a.localBlocked {
					continue
				}
				if got != (side == "local") {
					t.Errorf("%s: reached = %v (output %q)", side, got, out)
				}
			}
		})
	}
}

// TestCancelKillsLeftovers: a process that left the command's session is
// gone once a canceled command returns, through the persistent sandbox's
// server and with one bwrap per command, with and without the proxy's
// bridge between bwrap and the command.
func TestCancelKillsLeftovers(t *testing.T) {
	requireBwrap(t)
	for _, c := range []struct {
		network Network
		per     bool
	}{{NetworkNone, false}, {NetworkProxy, false}, {NetworkNone, true}, {NetworkProxy, true}} {
		name := string(c.network)
		if c.per {
			name += "-percommand"
		}
		t.Run(name, func(t *testing.T) {
			h := newHost(t)
			ex := open(t, h.root, Options{Network: c.network, PerCommand: c.per, Home: h.home, DataDir: h.data, GitDir: h.gitDir, Hide: []string{h.elsewhere}})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan executor.Exit, 1)
			go func() {
				x, _ := ex.Shell(ctx, detach(h)+"; sleep 100", executor.RunOptions{})
				done <- x
			}()
			for _, err := os.Stat(filepath.Join(h.root, ".up-"+token(h))); err != nil; _, err = os.Stat(filepath.Join(h.root, ".up-"+token(h))) {
				time.Sleep(20 * time.Millisecond)
			}
			cancel()
			if x := <-done; !x.Canceled {
				t.Fatalf("exit %+v", x)
			}
			if survives(t, token(h)) {
				t.Fatal("a process left inside the sandbox outlived the canceled command")
			}
		})
	}
}

// TestGitWorktree: a commit inside the sandbox works; the clone's config
// and hooks stay out of reach (TestAttacks checks the writes fail).
func TestGitWorktree(t *testing.T) {
	requireBwrap(t)
	h := newHost(t)
	ex := h.sandbox(t, NetworkNone)
	code, out := shell(t, ex, "echo new > new.txt && git add new.txt && git -c user.name=a -c user.email=a@e commit -q -m inside && git log --oneline | wc -l")
	if code != 0 || strings.TrimSpace(out) != "2" {
		t.Fatalf("exit %d: %s", code, out)
	}
	cmd := exec.Command("git", "log", "-1", "--format=%s", "w")
	cmd.Dir = filepath.Dir(h.gitDir)
	b, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(b)) != "inside" {
		t.Fatalf("the clone does not see the commit: %q %v", b, err)
	}
}
