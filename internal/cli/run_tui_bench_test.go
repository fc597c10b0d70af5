//go:build !windows

package cli_test

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// BenchmarkRunTUI_FirstPaint measures `bonsai run` on an 80×24
// pseudo-terminal from the process's start to the editor on the screen
// (ms/paint), the process quit by Ctrl-C twice after each. It starts
// this test binary, or the build BONSAI_BENCH_BIN names:
//
//	go build -o /tmp/bonsai ./cmd/bonsai
//	BONSAI_BENCH_BIN=/tmp/bonsai go test -run '^$' -bench RunTUI_FirstPaint ./internal/cli/
//
// Each start has a data directory of its own, created by that start.
func BenchmarkRunTUI_FirstPaint(b *testing.B) {
	srv := llmtest.NewServer(b)
	var total time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		_, s, exited := startTUI(b, srv.URL, "--no-session")
		s.waitFor("Ask anything")
		total += time.Since(start)
		n++
		s.key("\x03\x03")
		<-exited
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(n), "ms/paint")
}
