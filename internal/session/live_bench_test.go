package session_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// BenchmarkLive_Stream measures what the live file costs a run: the time
// Delta takes on the agent loop's goroutine per streamed delta (target:
// under 1 µs; the loop never waits for the disk) and the writes a second
// (target: at most 1/LiveInterval = 10, however fast the stream).
// "unpaced" emits deltas as fast as the loop can; "1000/s" paces them like
// a very fast model (a few hundred tokens a second is typical). The
// "store" cases send the file to a store as well (SetStore, a shared
// board), which it writes at most 1/LiveStoreInterval times a second
// (target: ≤ 4).
func BenchmarkLive_Stream(b *testing.B) {
	for _, bc := range []struct {
		name  string
		every time.Duration
		store bool
	}{{"unpaced", 0, false}, {"1000/s", time.Millisecond, false}, {"store-unpaced", 0, true}, {"store-1000/s", time.Millisecond, true}} {
		b.Run(bc.name, func(b *testing.B) {
			transcript := filepath.Join(b.TempDir(), "transcript.jsonl")
			if err := os.WriteFile(transcript, []byte(`{"type":"session"}`+"\n"), 0o600); err != nil {
				b.Fatal(err)
			}
			lw := session.NewLiveWriter(transcript, nil)
			defer lw.Close()
			var st memLive
			if bc.store {
				lw.SetStore(st.write)
			}
			lw.Start()
			ev := llm.Event{Type: llm.EventTextDelta, Index: 0, Delta: "tok "}
			var tick *time.Ticker
			if bc.every > 0 {
				tick = time.NewTicker(bc.every)
				defer tick.Stop()
			}
			var inDelta time.Duration
			start := time.Now()
			for b.Loop() {
				if tick != nil {
					<-tick.C
				}
				t0 := time.Now()
				lw.Delta(ev)
				inDelta += time.Since(t0)
			}
			elapsed := time.Since(start)
			writes := lw.Writes()
			b.ReportMetric(float64(inDelta.Nanoseconds())/float64(b.N), "event-ns/delta")
			b.ReportMetric(float64(writes)/elapsed.Seconds(), "writes/s")
			b.ReportMetric(float64(b.N)/float64(max(writes, 1)), "deltas/write")
			if bc.store {
				_, n := st.get()
				b.ReportMetric(float64(n)/elapsed.Seconds(), "store-writes/s")
			}
		})
	}
}
