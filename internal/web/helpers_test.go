package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
)

// env is a server on a real SQLite database in a temporary data directory.
type env struct {
	t     *testing.T
	dir   config.Dir
	db    *sqlite.DB
	srv   *Server
	ts    *httptest.Server
	token string
}

func newEnv(t testing.TB) *env { return newEnvPoll(t, 20*time.Millisecond) }

// newEnvPoll is newEnv with the given poll interval of the event log; 0
// means the production default.
func newEnvPoll(t testing.TB, poll time.Duration) *env {
	t.Helper()
	dir := config.Dir(t.TempDir())
	if _, err := config.Init(dir); err != nil {
		t.Fatal(err)
	}
	tok, err := os.ReadFile(dir.WebTokenFile())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	db, err := sqlitetest.Open(ctx, dir.DB(), sqlite.WithClock(increasingClock()))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Store: db, Token: strings.TrimSpace(string(tok)), Dir: dir, Author: "tester",
		PollInterval: poll,
		Getenv: func(k string) string {
			if k == "ANTHROPIC_API_KEY" {
				return "sk-secret-value"
			}
			return ""
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Catchup(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); srv.Follow(ctx) }()
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		cancel()
		ts.CloseClientConnections()
		ts.Close()
		<-done
		db.Close()
	})
	e := &env{dir: dir, db: db, srv: srv, ts: ts, token: strings.TrimSpace(string(tok))}
	if tt, ok := t.(*testing.T); ok {
		e.t = tt
	}
	return e
}

// project adds a project with a local repository directory.
func (e *env) project(t testing.TB, slug string) board.Project {
	t.Helper()
	p, err := e.db.CreateProject(context.Background(), board.Project{Slug: slug, Name: "Project " + slug,
		Repo: t.TempDir(), DefaultBranch: "main", Active: true})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ticket creates a ticket as a person.
func (e *env) ticket(t testing.TB, slug, title string, state board.State) board.Ticket {
	t.Helper()
	tk, err := e.db.CreateTicket(context.Background(), board.Ticket{ProjectSlug: slug, Title: title,
		Priority: board.DefaultPriority, State: state, Criteria: []string{"it works"}}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// toVerification moves a ticket to VERIFICATION the way the agent does.
func (e *env) toVerification(t testing.TB, ref board.Ref) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.db.MoveTicket(ctx, ref, board.MoveRequest{To: board.Verification, Actor: board.Agent}, "agent"); err != nil {
		t.Fatal(err)
	}
}

// browser returns a client logged in through the token link, as a person's
// browser is. It does not follow redirects.
func (e *env) browser(t testing.TB) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(e.ts.URL + "/?token=" + e.token)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("token link: status %d, want 303", res.StatusCode)
	}
	return c
}

// anon returns a client with no credentials that does not follow redirects.
func anon() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type response struct {
	status int
	header http.Header
	body   string
}

func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.body), v); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
}

func send(t testing.TB, c *http.Client, req *http.Request) response {
	t.Helper()
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}

// api calls the API as a script does, with the bearer token.
func (e *env) api(t testing.TB, method, path, body string) response {
	t.Helper()
	req, _ := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return send(t, anon(), req)
}

// get fetches a page with client c.
func (e *env) get(t testing.TB, c *http.Client, path string) response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.ts.URL+path, nil)
	return send(t, c, req)
}

// post submits a form with client c, adding the CSRF token.
func (e *env) post(t testing.TB, c *http.Client, path string, form url.Values) response {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set(csrfField, e.srv.auth.csrf)
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return send(t, c, req)
}

func wantStatus(t testing.TB, r response, want int) {
	t.Helper()
	if r.status != want {
		t.Fatalf("status %d, want %d; body:\n%s", r.status, want, r.body)
	}
}

func wantBody(t testing.TB, r response, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(r.body, s) {
			t.Fatalf("body lacks %q:\n%s", s, r.body)
		}
	}
}

func storeTitle(s *string) board.TicketPatch { return board.TicketPatch{Title: s} }

func planUpdate(s *string) board.TicketPatch { return board.TicketPatch{Plan: s} }

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// increasingClock reads time.Now in milliseconds but never returns the same
// millisecond twice, so of two writes in a row the second is always the
// later one, with no test sleeping for it.
func increasingClock() func() time.Time {
	var mu sync.Mutex
	var last time.Time
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now().UTC().Truncate(time.Millisecond)
		if !now.After(last) {
			now = last.Add(time.Millisecond)
		}
		last = now
		return now
	}
}
