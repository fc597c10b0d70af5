package sandbox

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/executortest"
)

// requireBwrap skips a test when bwrap cannot run here, except on CI,
// where .ci/run installs it and its absence is a failure.
func requireBwrap(t testing.TB) {
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

func TestContract(t *testing.T) {
	requireBwrap(t)
	executortest.Run(t, func(t *testing.T, root string) executor.Executor {
		return open(t, root, Options{})
	})
}

// TestContract_Proxy: every command runs under the bridge in proxy mode,
// which must keep the contract (stdin, output, exit codes, timeouts,
// cancellation).
func TestContract_Proxy(t *testing.T) {
	requireBwrap(t)
	executortest.Run(t, func(t *testing.T, root string) executor.Executor {
		return open(t, root, Options{Network: NetworkProxy})
	})
}

func TestOptionsRefused(t *testing.T) {
	root := t.TempDir()
	if _, err := New(root, Options{Network: NetworkProxy, Proxy: ProxyOptions{Allow: []string{"ok.example", "https://bad.example/"}}}); err == nil || !strings.Contains(err.Error(), "https://bad.example/") {
		t.Fatalf("a bad allow-list entry accepted: %v", err)
	}
	if _, err := New(root, Options{Network: NetworkProxy, Proxy: ProxyOptions{Bridge: root}}); err == nil || !strings.Contains(err.Error(), "Options.Proxy.Bridge") {
		t.Fatalf("a directory accepted as the bridge: %v", err)
	}
	if _, err := New(root, Options{Network: "some"}); err == nil {
		t.Fatal("unknown network mode accepted")
	}
	if _, err := New(root, Options{Caches: map[string]string{"GITHUB_TOKEN": t.TempDir()}}); err == nil {
		t.Fatal("a denied variable accepted as a cache")
	}
	if _, err := New(root, Options{Home: "/"}); err == nil {
		t.Fatal("a home of / accepted")
	}
}

func shell(t *testing.T, s executor.Executor, script string, env ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	x, err := s.Shell(context.Background(), script, executor.RunOptions{Output: &out, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return x.Code, out.String()
}

func TestEnvironmentAndPrivileges(t *testing.T) {
	requireBwrap(t)
	t.Setenv("BONSAI_SANDBOX_RUNTIME_ONLY", "x")
	root := t.TempDir()
	cache := filepath.Join(t.TempDir(), "gocache")
	s := open(t, root, Options{Caches: map[string]string{"GOCACHE": cache}})
	t.Setenv("TMPDIR", "/somewhere/else")
	code, out := shell(t, s, `env; cat /proc/[0-9]*/environ | tr '\0' '\n'; grep NoNewPrivs /proc/self/status; grep CapEff /proc/self/status; echo hi > "$GOCACHE/f"`, "EXTRA=1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{"HOME=" + s.home + "\n", "TMPDIR=/tmp\n", "EXTRA=1\n", "PATH=", "GOCACHE=" + s.home + "/.cache/bonsai/gocache\n", "NoNewPrivs:\t1", "CapEff:\t0000000000000000"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "BONSAI_SANDBOX_RUNTIME_ONLY") {
		t.Errorf("the runtime's environment leaked (to the command or to a process it can read, such as bwrap's init):\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(cache, "f")); err != nil || string(b) != "hi\n" {
		t.Fatalf("cache write did not reach the host: %q %v", b, err)
	}
}

func TestReadOnlyHost(t *testing.T) {
	requireBwrap(t)
	s := open(t, t.TempDir(), Options{})
	if code, out := shell(t, s, "touch /usr/bonsai-sandbox-test"); code == 0 {
		t.Fatalf("wrote to /usr: %s", out)
	}
}

func TestToolchain(t *testing.T) {
	t.Parallel()
	requireBwrap(t)
	root := t.TempDir()
	cache := filepath.Join(t.TempDir(), "go-build")
	seeded := seedGoCache(t, cache)
	s := open(t, root, Options{Caches: map[string]string{"GOCACHE": cache}})
	must(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module tiny\n\ngo 1.21\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() { println(\"tiny\") }\n"), 0o644))
	code, out := shell(t, s, "go version && go env GOCACHE && go build -o tiny . && ./tiny", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if !strings.Contains(out, "go version go") || !strings.Contains(out, s.home+"/.cache/bonsai/gocache") || !strings.Contains(out, "tiny") {
		t.Fatalf("output: %s", out)
	}
	cacheGrew(t, cache, seeded)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func runContract(t *testing.T, o Options) {
	executortest.Run(t, func(t *testing.T, root string) executor.Executor {
		return open(t, root, o)
	})
}

// testBinary is the running test binary, which TestMain makes the
// sandbox's command server when started with BridgeArg: the fallback
// server, as the bonsai binary is where bonsai-exec cannot run.
func testBinary(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
