package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
)

// BenchmarkPartialLatency measures how long a streamed delta takes to reach
// an open ticket page's event stream, with the default 250 ms poll.
// "from-file": from the heartbeat's write of the live file (target: at most
// one poll interval, 250 ms, ~125 ms on average). "from-delta": from the
// agent loop emitting the delta: after a pause the writer writes at once;
// "from-delta-in-stream" emits it while another part streams a delta a
// millisecond, so it waits for the writer's next batch (LiveInterval,
// 100 ms) (target: at most 350 ms). The "shared-" cases run the agent
// on another machine of a shared board (Postgres): the delta reaches the
// page through the store, whose writes are batched too
// (session.LiveStoreInterval, 300 ms) (target: at most 650 ms).
func BenchmarkPartialLatency(b *testing.B) {
	for _, bc := range []struct {
		name                         string
		viaWriter, streaming, shared bool
	}{{"from-file", false, false, false}, {"from-delta", true, false, false}, {"from-delta-in-stream", true, true, false},
		{"shared-from-delta", true, false, true}, {"shared-from-delta-in-stream", true, true, true}} {
		viaWriter := bc.viaWriter
		b.Run(bc.name, func(b *testing.B) {
			var (
				e    *env
				lw   *agentrunner.Live
				size int64
				path string
			)
			if bc.shared {
				var worker *postgres.DB
				e, worker = newSharedEnv(b)
				e.srv.activity.every = 250 * time.Millisecond // the default interval
				a := newRemoteAgent(b, worker)
				a.add(llm.UserText("Work on ticket demo#1"))
				lw = a.lw
				var err error
				if _, size, err = worker.TranscriptSize(context.Background(), a.tk.ID); err != nil {
					b.Fatal(err)
				}
			} else {
				e = newEnvPoll(b, 0) // the default interval
				e.project(b, "demo")
				tk := e.ticket(b, "demo", "watched", board.InProgress)
				f := agentSession(b, e, tk)
				appendMsg(b, f, llm.UserText("Work on ticket demo#1"))
				fi, err := os.Stat(f.Path())
				if err != nil {
					b.Fatal(err)
				}
				size, path = fi.Size(), session.LivePath(f.Path())
				lw = agentrunner.NewLive(f.Path(), nil)
				defer lw.Close()
			}
			req, _ := http.NewRequest("GET", e.ts.URL+"/p/demo/1/activity?offset="+itoa64(size), nil)
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: e.srv.auth.session})
			s := openStream(b, req, http.DefaultClient)
			if viaWriter {
				assistantStart(lw)
				if bc.streaming { // thinking streams all along: every write is batched
					stop := make(chan struct{})
					defer close(stop)
					go func() {
						tick := time.NewTicker(time.Millisecond)
						defer tick.Stop()
						for {
							select {
							case <-stop:
								return
							case <-tick.C:
								streamDelta(lw, llm.EventThinkingDelta, 1, ".")
							}
						}
					}()
				}
			} else {
				writeLive(b, path, fmt.Sprintf(`{"type":"message","at":%d}`+"\n", size))
			}
			var total, worst time.Duration
			for i := 0; b.Loop(); i++ {
				word := fmt.Sprintf("w%d.", i)
				// Start at a random point of the poll's cycle, as a
				// delta does; after the last receipt it would always be
				// at the start of one.
				b.StopTimer()
				time.Sleep(rand.N(250 * time.Millisecond))
				b.StartTimer()
				start := time.Now()
				if viaWriter {
					streamDelta(lw, llm.EventTextDelta, 0, word)
				} else {
					appendLive(b, path, `{"type":"delta","kind":"text","d":"`+word+`"}`+"\n")
				}
				s.until(b, 5*time.Second, func(ev sseEvent) bool {
					return ev.event == "partial" && strings.Contains(ev.data, word+"<")
				})
				d := time.Since(start)
				total += d
				worst = max(worst, d)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "mean-ms")
			b.ReportMetric(float64(worst.Milliseconds()), "worst-ms")
		})
	}
}
