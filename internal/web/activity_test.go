package web

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// writeHugeResult appends a tool result of n bytes to the transcript at
// path in pieces, as one line; with finish false the line's end is not
// written.
func writeHugeResult(t testing.TB, path string, n int, finish bool) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	ts := time.Now().UTC().Format(session.TimeFormat)
	fmt.Fprintf(fh, `{"type":"message","id":"huge0001","parentId":null,"timestamp":%q,"message":{"role":"toolResult","content":[{"type":"text","text":"`, ts)
	chunk := []byte(strings.Repeat("0123456789abcdef", 4096))
	for w := 0; w < n; w += len(chunk) {
		if _, err := fh.Write(chunk[:min(len(chunk), n-w)]); err != nil {
			t.Fatal(err)
		}
	}
	if finish {
		fh.WriteString(`"}],"toolCallId":"c1","toolName":"bash"}}` + "\n")
	}
}

func finishLine(t testing.TB, path string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	fh.WriteString(`"}],"toolCallId":"c1","toolName":"bash"}}` + "\n")
}

// activityTicket makes a ticket with a run and a transcript holding its
// prompt, and returns the transcript and the run.
func activityTicket(t testing.TB, e *env) (*session.File, board.Run) {
	t.Helper()
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "t", board.InProgress)
	run, err := e.db.StartRun(context.Background(), board.Run{TicketID: tk.ID, Task: board.TaskImplement})
	if err != nil {
		t.Fatal(err)
	}
	f := agentSession(t, e, tk)
	appendMsg(t, f, llm.UserText("Work on ticket demo#1"))
	return f, run
}

func activityAt(t testing.TB, e *env, c *http.Client, path string) *sseClient {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", e.ts.URL+"/p/demo/1/activity?offset="+itoa64(fi.Size()), nil)
	return openStream(t, req, c)
}

func TestActivity_OversizedEntryShowsPlaceholder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f, _ := activityTicket(t, e)
	c := e.browser(t)
	s := activityAt(t, e, c, f.Path())
	writeHugeResult(t, f.Path(), 3_000_000, true)
	scriptedTurn(t, f, "After the big result")
	ev := s.next(t, 5*time.Second)
	if ev.event != "entry" || !strings.Contains(ev.data, "Entry too large to show (3.0 MB) — see the transcript file") ||
		!strings.Contains(ev.data, "tool result") || strings.Contains(ev.data, "0123456789abcdef") {
		t.Fatalf("oversized entry %.300q", ev.data)
	}
	if ev = s.next(t, 5*time.Second); !strings.Contains(ev.data, "After the big result") {
		t.Fatalf("entry after the oversized one %.300q", ev.data)
	}
	// The ticket page and the run page show the same placeholder.
	r := e.get(t, c, "/p/demo/1")
	wantBody(t, r, "Entry too large to show (3.0 MB)", "After the big result")
	if strings.Contains(r.body, "0123456789abcdef") {
		t.Fatal("the ticket page shows the oversized entry")
	}
}

func TestRunPage_OversizedEntryShowsPlaceholder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f, run := activityTicket(t, e)
	writeHugeResult(t, f.Path(), 2_500_000, true)
	scriptedTurn(t, f, "After the big result")
	if err := e.srv.Catchup(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := e.get(t, e.browser(t), "/runs/"+run.ID)
	wantStatus(t, r, 200)
	wantBody(t, r, "Work on ticket demo#1", "Entry too large to show (2.5 MB) — see the transcript file", "After the big result")
	if strings.Contains(r.body, "0123456789abcdef") {
		t.Fatal("the run page shows the oversized entry")
	}
}

// heapLive returns the heap's live bytes as of the last garbage collection.
func heapLive() uint64 { return readMetric("/gc/heap/live:bytes") }

// heapObjects returns the bytes of the heap's objects now, garbage not yet
// collected included: a peak of it bounds what was held at any moment.
func heapObjects() uint64 { return readMetric("/memory/classes/heap/objects:bytes") }

func readMetric(name string) uint64 {
	m := []metrics.Sample{{Name: name}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// TestActivity_FortyStreamsOnAHugeLine opens 40 activity streams on a
// ticket whose transcript gets a 20 MB line, written in pieces, and
// measures the heap all along (garbage included): it must stay far below
// what 40 copies of the line would take, and the live heap must come back
// down when the streams close.
func TestActivity_FortyStreamsOnAHugeLine(t *testing.T) {
	const streams, size, bound = 40, 20_000_000, 200 << 20
	e := newEnv(t)
	f, _ := activityTicket(t, e)
	c := e.browser(t)
	ss := make([]*sseClient, streams)
	for i := range ss {
		ss[i] = activityAt(t, e, c, f.Path())
	}
	runtime.GC()
	base := heapLive()

	var peak uint64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		tk := time.NewTicker(2 * time.Millisecond)
		defer tk.Stop()
		for {
			peak = max(peak, heapObjects())
			select {
			case <-stop:
				return
			case <-tk.C:
			}
		}
	}()
	// The streams poll while the line is being written, then see its end.
	writeHugeResult(t, f.Path(), size, false)
	finishLine(t, f.Path())
	scriptedTurn(t, f, "sentinel after the huge line")
	var wg sync.WaitGroup
	errs := make(chan string, streams)
	for _, s := range ss {
		wg.Go(func() {
			var entries []string
			timeout := time.After(time.Minute)
		read:
			for {
				select {
				case ev, ok := <-s.events:
					if !ok {
						break read
					}
					if ev.event != "entry" {
						continue
					}
					if entries = append(entries, ev.data); strings.Contains(ev.data, "sentinel after the huge line") {
						break read
					}
				case <-timeout:
					break read
				}
			}
			if len(entries) == 0 || !strings.Contains(entries[0], "Entry too large to show (20.0 MB)") {
				errs <- fmt.Sprintf("the stream ended or its first entry is not a placeholder: %d entries", len(entries))
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	close(errs)
	grew := int64(peak) - int64(base)
	t.Logf("heap: %d MB live before, peak %d MB of objects (+%d MB) with %d streams on a %d MB line",
		base>>20, peak>>20, grew>>20, streams, size/1_000_000)
	for msg := range errs {
		t.Fatal(msg)
	}
	if grew > bound {
		t.Fatalf("heap grew by %d MB, bound %d MB", grew>>20, bound>>20)
	}

	for _, s := range ss {
		s.res.Body.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		after := heapLive()
		if int64(after)-int64(base) < 16<<20 {
			t.Logf("live heap after the streams closed: %d MB", after>>20)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("live heap stayed at %d MB after the streams closed (%d MB before)", after>>20, base>>20)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitUntil polls cond until it holds, failing after a while.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting until", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestActivity_OneReaderPerTicket(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f, _ := activityTicket(t, e)
	c := e.browser(t)
	fi, _ := os.Stat(f.Path())
	start := fi.Size()
	a, b := activityAt(t, e, c, f.Path()), activityAt(t, e, c, f.Path())
	scriptedTurn(t, f, "First step")
	for _, s := range []*sseClient{a, b} {
		if ev := s.next(t, 5*time.Second); !strings.Contains(ev.data, "First step") || ev.id == "" {
			t.Fatalf("first entry %+v", ev)
		}
	}
	if n := e.srv.activity.running(); n != 1 {
		t.Fatalf("%d readers follow one ticket's transcript", n)
	}
	// A page rendered before the hub read the step starts behind it: it
	// reads what it missed from the file, then follows the hub.
	req, _ := http.NewRequest("GET", e.ts.URL+"/p/demo/1/activity?offset="+itoa64(start), nil)
	late := openStream(t, req, c)
	if ev := late.next(t, 5*time.Second); !strings.Contains(ev.data, "First step") {
		t.Fatalf("late stream's first entry %.200q", ev.data)
	}
	if ev := late.next(t, 5*time.Second); !strings.Contains(ev.data, "entry-tool") {
		t.Fatalf("late stream's second entry %.200q", ev.data)
	}
	scriptedTurn(t, f, "Second step")
	for _, s := range []*sseClient{a, b, late} {
		s.until(t, 5*time.Second, func(ev sseEvent) bool { return strings.Contains(ev.data, "Second step") })
	}
	// A browser reconnecting with the id of the last entry it got
	// continues after it.
	fi, _ = os.Stat(f.Path())
	req, _ = http.NewRequest("GET", e.ts.URL+"/p/demo/1/activity?offset="+itoa64(start), nil)
	req.Header.Set("Last-Event-ID", itoa64(fi.Size()))
	again := openStream(t, req, c)
	scriptedTurn(t, f, "Third step")
	if ev := again.next(t, 5*time.Second); !strings.Contains(ev.data, "Third step") {
		t.Fatalf("reconnected stream's first entry %.200q", ev.data)
	}
	for _, s := range []*sseClient{a, b, late, again} {
		s.res.Body.Close()
	}
	// The last stream to leave stops the reader.
	waitUntil(t, "the reader stops", func() bool { return e.srv.activity.running() == 0 })
}
