package web

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct{ id, event, data string }

// sseClient reads an event stream.
type sseClient struct {
	res    *http.Response
	events chan sseEvent
}

func openStream(t testing.TB, req *http.Request, c *http.Client) *sseClient {
	t.Helper()
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		res.Body.Close()
		t.Fatalf("stream: status %d, type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	s := &sseClient{res: res, events: make(chan sseEvent, 1024)}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev sseEvent
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if len(data) > 0 {
					ev.data = strings.Join(data, "\n")
					s.events <- ev
				}
				ev, data = sseEvent{}, nil
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				data = append(data, line[6:])
			}
		}
	}()
	t.Cleanup(func() { res.Body.Close() })
	return s
}

// next returns the next event, failing after the timeout.
func (s *sseClient) next(t testing.TB, timeout time.Duration) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			t.Fatal("stream ended")
		}
		return ev
	case <-time.After(timeout):
		t.Fatal("no event within", timeout)
	}
	return sseEvent{}
}

// until returns the first event for which ok is true, skipping others.
func (s *sseClient) until(t testing.TB, timeout time.Duration, ok func(sseEvent) bool) sseEvent {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ev := s.next(t, time.Until(deadline))
		if ok(ev) {
			return ev
		}
	}
}

// otherWriter opens a second handle on the database, as a heartbeat in
// another process does.
func otherWriter(t testing.TB, e *env) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), e.dir.DB())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestEventStream_HistoryThenLive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	req, _ := http.NewRequest("GET", e.ts.URL+"/api/events/stream?after=0", nil)
	req.Header.Set("Authorization", "Bearer "+e.token)
	s := openStream(t, req, http.DefaultClient)
	ev := s.next(t, 2*time.Second)
	if ev.event != "project.created" || ev.id != "1" || !strings.Contains(ev.data, `"slug":"demo"`) {
		t.Fatalf("first event %+v", ev)
	}
	other := otherWriter(t, e)
	if _, err := other.CreateTicket(context.Background(), board.Ticket{ProjectSlug: "demo", Title: "from the heartbeat",
		Priority: 2, State: board.Backlog}, board.Human); err != nil {
		t.Fatal(err)
	}
	ev = s.next(t, 2*time.Second)
	if ev.event != "ticket.created" || ev.id != "2" || !strings.Contains(ev.data, "from the heartbeat") {
		t.Fatalf("live event %+v", ev)
	}
}

func TestEventStream_ResumesFromLastEventID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "a", board.Backlog)
	e.ticket(t, "demo", "b", board.Backlog)
	req, _ := http.NewRequest("GET", e.ts.URL+"/api/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Last-Event-ID", "2")
	s := openStream(t, req, http.DefaultClient)
	if ev := s.next(t, 2*time.Second); ev.id != "3" {
		t.Fatalf("resumed at %+v, want id 3", ev)
	}
	req, _ = http.NewRequest("GET", e.ts.URL+"/api/events/stream?after=abc", nil)
	req.Header.Set("Authorization", "Bearer "+e.token)
	wantStatus(t, send(t, anon(), req), 400)
}

func TestBoardStream_CardsFromAnotherWriter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.project(t, "other")
	tk := e.ticket(t, "demo", "Watch me", board.Backlog)
	c := e.browser(t)
	req, _ := http.NewRequest("GET", e.ts.URL+"/p/demo/events", nil)
	s := openStream(t, req, c)

	w := otherWriter(t, e)
	ctx := context.Background()
	w.CreateTicket(ctx, board.Ticket{ProjectSlug: "other", Title: "not on this board", Priority: 2, State: board.Backlog}, board.Human)
	if _, err := w.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.Research, Actor: board.Human}, "someone"); err != nil {
		t.Fatal(err)
	}
	ev := s.until(t, 2*time.Second, func(ev sseEvent) bool { return strings.Contains(ev.data, `data-state="RESEARCH"`) })
	if ev.event != "card" || !strings.Contains(ev.data, `id="t-`+tk.ID+`"`) {
		t.Fatalf("card event %+v", ev)
	}
	if ev = s.next(t, 2*time.Second); ev.event != "counts" || !strings.Contains(ev.data, `"BACKLOG":0`) || !strings.Contains(ev.data, `"RESEARCH":1`) {
		t.Fatalf("counts after the card %+v", ev)
	}
	// An agent run shows on the card while it runs.
	run, err := w.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskResearch})
	if err != nil {
		t.Fatal(err)
	}
	s.until(t, 2*time.Second, func(ev sseEvent) bool { return strings.Contains(ev.data, "agent running") })
	run.Status, run.CostUSD = board.RunCompleted, 1.5
	w.FinishRun(ctx, run)
	ev = s.until(t, 2*time.Second, func(ev sseEvent) bool { return strings.Contains(ev.data, "$1.50") })
	if strings.Contains(ev.data, "agent running") {
		t.Fatalf("card after the run %+v", ev)
	}
}

func TestTicketStream_SignalsChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	a := e.ticket(t, "demo", "a", board.InProgress)
	e.ticket(t, "demo", "b", board.InProgress)
	c := e.browser(t)
	req, _ := http.NewRequest("GET", e.ts.URL+"/p/demo/1/events", nil)
	s := openStream(t, req, c)
	w := otherWriter(t, e)
	ctx := context.Background()
	w.AddComment(ctx, board.Ref{Project: "demo", Number: 2}, board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindStatus, Content: "b"})
	w.AddComment(ctx, a.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindStatus, Content: "a"})
	ev := s.next(t, 2*time.Second)
	if ev.event != "ticket" || ev.data != ev.id {
		t.Fatalf("ticket event %+v", ev)
	}
	wantBody(t, e.get(t, c, "/p/demo/1/live"), "<p>a</p>")
}

func TestServe_GracefulShutdownEndsStreams(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx, l) }()
	req, _ := http.NewRequest("GET", "http://"+l.Addr().String()+"/api/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+e.token)
	s := openStream(t, req, http.DefaultClient)
	cancel()
	select {
	case err := <-done:
		if err != nil && err != http.ErrServerClosed {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the context ended")
	}
	select {
	case _, ok := <-s.events:
		if ok {
			t.Fatal("an event after shutdown")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the stream stayed open")
	}
}

func TestServe_WarmsBoards(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.project(t, "demo")
	e.ticket(t, "demo", "t", board.Backlog)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx, l) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		e.srv.cards.mu.Lock()
		n := len(e.srv.cards.projects[p.ID])
		e.srv.cards.mu.Unlock()
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the board was not read at start")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
