package sandbox

import (
	"context"
	"os"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

func benchShellTrue(b *testing.B, ex executor.Executor) {
	ctx := context.Background()
	for b.Loop() {
		x, err := ex.Shell(ctx, "true", executor.RunOptions{})
		if err != nil || x.Code != 0 {
			b.Fatalf("exit %d: %v", x.Code, err)
		}
	}
}

// BenchmarkShell_True compares the cost of starting `bash -c true` on the
// host, inside bwrap with no network, and inside bwrap in proxy mode
// (where the bridge, the test binary here, runs bash as its child).
func BenchmarkShell_True(b *testing.B) {
	b.Run("local", func(b *testing.B) {
		l, err := local.New(b.TempDir(), local.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		benchShellTrue(b, l)
	})
	b.Run("sandbox", func(b *testing.B) {
		requireBwrap(b)
		benchShellTrue(b, open(b, b.TempDir(), Options{}))
	})
	b.Run("proxy", func(b *testing.B) {
		requireBwrap(b)
		benchShellTrue(b, open(b, b.TempDir(), Options{Network: NetworkProxy}))
	})
	// The bonsai binary as the bridge costs its package initialisation
	// on every command: BONSAI_BENCH_BRIDGE=$(go build -o … ./cmd/bonsai).
	if bridge := os.Getenv("BONSAI_BENCH_BRIDGE"); bridge != "" {
		b.Run("proxy-bonsai", func(b *testing.B) {
			requireBwrap(b)
			benchShellTrue(b, open(b, b.TempDir(), Options{Network: NetworkProxy, Proxy: ProxyOptions{Bridge: bridge}}))
		})
	}
}
