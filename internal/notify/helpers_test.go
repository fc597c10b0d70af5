package notify_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
)

// clock is a settable clock shared by the store and the deliverer.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is a store on a file with one project, one ticket and a clock.
type env struct {
	t     testing.TB
	path  string
	clock *clock
	st    *sqlite.DB
	tk    board.Ticket
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{t: t, path: filepath.Join(t.TempDir(), "bonsai.db"),
		clock: &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}}
	e.st = e.open()
	if _, err := e.st.CreateProject(t.Context(), board.Project{Slug: "demo", Name: "Demo", Repo: "/src/demo", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	tk, err := e.st.CreateTicket(t.Context(), board.Ticket{ProjectSlug: "demo", Title: "Pick a port", State: board.Research}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	e.tk = tk
	return e
}

// open opens another handle on the same database, as another process would.
func (e *env) open() *sqlite.DB {
	e.t.Helper()
	st, err := sqlitetest.Open(e.t.Context(), e.path, sqlite.WithClock(e.clock.Now))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { st.Close() })
	return st
}

func (e *env) channel(c board.Channel) {
	e.t.Helper()
	if _, err := e.st.AddChannel(e.t.Context(), c); err != nil {
		e.t.Fatal(err)
	}
}

// ask has the agent ask a question: the event that notifies.
func (e *env) ask(text string) {
	e.t.Helper()
	_, err := e.st.AddComment(e.t.Context(), e.tk.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindQuestion, Content: text})
	if err != nil {
		e.t.Fatal(err)
	}
	e.clock.advance(time.Millisecond)
}

func (e *env) deliverer(st notify.Outbox, o notify.Options) *notify.Deliverer {
	return &notify.Deliverer{Outbox: st, Options: o, Now: e.clock.Now}
}

func (e *env) deliver(o notify.Options) notify.Result {
	e.t.Helper()
	res, err := e.deliverer(e.st, o).Deliver(e.t.Context())
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func (e *env) list() []board.Notification {
	e.t.Helper()
	ns, err := e.st.NotificationList(e.t.Context(), store.NotificationFilter{})
	if err != nil {
		e.t.Fatal(err)
	}
	return ns
}

// request is what a receiver got.
type request struct {
	path   string
	header http.Header
	body   []byte
}

// receiver is a real HTTP server that records requests and answers with
// the statuses given, then 200.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	reqs     []request
	statuses []int
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{statuses: statuses}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.reqs = append(r.reqs, request{path: req.URL.Path, header: req.Header.Clone(), body: body})
	status := http.StatusOK
	if len(r.statuses) > 0 {
		status, r.statuses = r.statuses[0], r.statuses[1:]
	}
	r.mu.Unlock()
	w.WriteHeader(status)
	if status >= 400 {
		io.WriteString(w, "no_service")
	}
}

func (r *receiver) requests() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]request(nil), r.reqs...)
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %s: %v", b, err)
	}
	return m
}
