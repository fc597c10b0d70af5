package sandbox

import (
	"context"
	"os"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

func benchShellTrue(b *testing.B, ex executor.Executor, ro ...bool) {
	ctx := context.Background()
	for b.Loop() {
		x, err := ex.Shell(ctx, "true", executor.RunOptions{ReadOnly: len(ro) > 0 && ro[0]})
		if err != nil || x.Code != 0 {
			b.Fatalf("exit %d: %v", x.Code, err)
		}
	}
}

// benchOnce runs `true` once.
func benchOnce(b *testing.B, ex executor.Executor) {
	x, err := ex.Shell(context.Background(), "true", executor.RunOptions{})
	if err != nil || x.Code != 0 {
		b.Fatalf("exit %d: %v", x.Code, err)
	}
}

// BenchmarkShell_True compares the cost of starting `bash -c true` on the
// host and inside the sandbox, with no network and in proxy mode: through
// the persistent sandbox's command server (sandbox, proxy) and with one
// bwrap per command (percommand-*, where in proxy mode the bridge, the
// test binary here, runs bash as its child).
func BenchmarkShell_True(b *testing.B) {
	b.Run("local", func(b *testing.B) {
		l, err := local.New(b.TempDir(), local.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		benchShellTrue(b, l)
	})
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"sandbox", Options{}},
		{"proxy", Options{Network: NetworkProxy}},
		{"percommand-sandbox", Options{PerCommand: true}},
		{"percommand-proxy", Options{Network: NetworkProxy, PerCommand: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			requireBwrap(b)
			benchShellTrue(b, open(b, b.TempDir(), c.o))
		})
	}
	// The limits the CLI sets by default (config.Limits): a cgroup where
	// the runtime may create one, rlimits, the disk guard's statfs.
	b.Run("sandbox-limits", func(b *testing.B) {
		requireBwrap(b)
		root := b.TempDir()
		benchShellTrue(b, open(b, root, Options{Limits: Limits{Memory: 2 << 30, Processes: 1024, Tmp: 1 << 30, FileSize: 4 << 30, DiskGrowth: 8 << 30}}))
	})
	// A command the policy allowed because it reads runs in the
	// executor's second, read-only sandbox.
	b.Run("sandbox-readonly", func(b *testing.B) {
		requireBwrap(b)
		benchShellTrue(b, open(b, b.TempDir(), Options{}), true)
	})
	// A run's first command starts the sandbox: bwrap and the command
	// server, the embedded bonsai-exec or (fallback) the test binary, or
	// the bonsai binary (BONSAI_BENCH_BRIDGE, below).
	firsts := []struct {
		name   string
		server string
	}{{"first-embedded", ""}, {"first-fallback", testBinary(b)}}
	if bridge := os.Getenv("BONSAI_BENCH_BRIDGE"); bridge != "" {
		firsts = append(firsts, struct{ name, server string }{"first-bonsai", bridge})
	}
	for _, c := range firsts {
		b.Run(c.name, func(b *testing.B) {
			requireBwrap(b)
			root := b.TempDir()
			for b.Loop() {
				s := open(b, root, Options{Server: c.server})
				benchOnce(b, s)
				s.Close()
			}
		})
	}
	// The bonsai binary as the bridge costs its package initialisation
	// on every command, as the server does once: BONSAI_BENCH_BRIDGE=$(go
	// build -o … ./cmd/bonsai).
	if bridge := os.Getenv("BONSAI_BENCH_BRIDGE"); bridge != "" {
		for _, per := range []bool{false, true} {
			name := "proxy-bonsai"
			if per {
				name = "percommand-proxy-bonsai"
			}
			b.Run(name, func(b *testing.B) {
				requireBwrap(b)
				benchShellTrue(b, open(b, b.TempDir(), Options{Network: NetworkProxy, PerCommand: per, Proxy: ProxyOptions{Bridge: bridge}}))
			})
		}
	}
}
