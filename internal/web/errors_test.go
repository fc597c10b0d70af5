package web

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// failingStore is the real store with Tickets and Ticket failing.
type failingStore struct {
	Store
	err error
}

func (f failingStore) Tickets(context.Context, store.TicketFilter) ([]board.Ticket, error) {
	return nil, f.err
}

func (f failingStore) Ticket(context.Context, board.Ref) (board.Ticket, error) {
	return board.Ticket{}, f.err
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestErrors_InternalDetailsStayInTheLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	var log lockedBuffer
	srv, err := New(Options{Store: failingStore{Store: e.db, err: errors.New("disk on fire at /secret/path")},
		Token: e.token, Dir: e.dir, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for _, path := range []string{"/p/demo", "/api/projects/demo/tickets", "/api/projects/demo/tickets/1", "/p/demo/1"} {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+e.token)
		r := send(t, anon(), req)
		wantStatus(t, r, http.StatusInternalServerError)
		wantBody(t, r, "something went wrong on the server; the details are in logs/web.log")
		if strings.Contains(r.body, "secret") || strings.Contains(r.body, "goroutine") {
			t.Errorf("%s leaks the error: %s", path, r.body)
		}
	}
	if !strings.Contains(log.String(), "disk on fire at /secret/path") {
		t.Errorf("the log lacks the error:\n%s", log.String())
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err    error
		status int
	}{
		{board.Errorf(board.EINVALID, "x"), 400},
		{board.Errorf(board.ENOTFOUND, "x"), 404},
		{board.Errorf(board.ECONFLICT, "x"), 409},
		{&board.RuleError{From: board.Backlog, To: board.Done, Rule: "r"}, 422},
		{errors.New("boom"), 500},
		{&http.MaxBytesError{Limit: 1}, 413},
	} {
		if got, _, _ := classify(tt.err); got != tt.status {
			t.Errorf("classify(%v) = %d, want %d", tt.err, got, tt.status)
		}
	}
}
