package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// boardFixture fills a project with n tickets spread over the columns the
// way a long-lived project looks: most DONE, the rest in the other states.
func boardFixture(b *testing.B, e *env, n int) {
	b.Helper()
	ctx := context.Background()
	e.project(b, "big")
	desc := strings.Repeat("Some description text of a realistic length. ", 10)
	for i := 0; i < n; i++ {
		st := board.Backlog
		switch {
		case i%10 == 1:
			st = board.Research
		case i%10 >= 2:
			st = board.InProgress
		}
		tk, err := e.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "big", Title: fmt.Sprintf("Ticket number %d with a title", i),
			Description: desc, Criteria: []string{"one", "two"}, Priority: i % 5, State: st}, board.Human)
		if err != nil {
			b.Fatal(err)
		}
		if i%10 >= 3 { // 70%: through VERIFICATION, most on to DONE
			e.toVerification(b, tk.Ref())
			if i%10 >= 4 {
				if _, err := e.db.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.Done, Actor: board.Human}, "x"); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if err := e.srv.Catchup(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkBoardPage_10kTickets measures the server time of the board page
// of a project with 10,000 tickets. Target: ≤ 50 ms per page.
func BenchmarkBoardPage_10kTickets(b *testing.B) {
	e := newEnv(b)
	boardFixture(b, e, 10_000)
	req := httptest.NewRequest("GET", "/p/big", nil)
	req.Host = "127.0.0.1"
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: e.srv.auth.session})
	var size int
	cold, coldStart := cpuTime(), time.Now()
	e.srv.ServeHTTP(httptest.NewRecorder(), req) // the first view reads the project
	coldCPU, coldWall := cpuTime()-cold, time.Since(coldStart)
	cpu := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		w := httptest.NewRecorder()
		e.srv.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("status %d", w.Code)
		}
		size = w.Body.Len()
	}
	b.ReportMetric(float64(size), "html-bytes")
	// CPU time per page: on a loaded machine the wall time above includes
	// waiting for a core.
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(coldWall.Milliseconds()), "first-view-ms")
	b.ReportMetric(float64(coldCPU.Milliseconds()), "first-view-cpu-ms")
}

// BenchmarkEventFanout_100Clients measures the time from a change committed
// by another writer (a second database handle, as a heartbeat in another
// process) until 100 open boards have received its card, with the
// production poll interval. Target: ≤ 1 s.
func BenchmarkEventFanout_100Clients(b *testing.B) {
	e := newEnvPoll(b, 0) // the default interval
	e.project(b, "demo")
	tk := e.ticket(b, "demo", "watched", board.Backlog)
	const clients = 100
	streams := make([]*sseClient, clients)
	for i := range streams {
		req, _ := http.NewRequest("GET", e.ts.URL+"/p/demo/events", nil)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: e.srv.auth.session})
		streams[i] = openStream(b, req, http.DefaultClient)
	}
	w := otherWriter(b, e)
	ctx := context.Background()
	var worst time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		title := fmt.Sprintf("change %d", i)
		start := time.Now()
		if _, err := w.UpdateTicket(ctx, tk.Ref(), storeTitle(&title), board.Human); err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		for _, s := range streams {
			wg.Go(func() {
				s.until(b, 5*time.Second, func(ev sseEvent) bool { return strings.Contains(ev.data, title+"<") })
			})
		}
		wg.Wait()
		if d := time.Since(start); d > worst {
			worst = d
		}
	}
	b.ReportMetric(float64(worst.Milliseconds()), "worst-ms")
}
