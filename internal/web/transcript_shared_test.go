package web

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/browsertest"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// TestMain stops, after the tests, the Postgres cluster (pgtest) and the
// Chromium (browsertest) they shared.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(browsertest.Closing(m))) }

// newSharedEnv is newEnv on a Postgres board several machines share: the
// server has a data directory of its own, and follows the event log by
// LISTEN/NOTIFY as `bonsai serve` does there. It returns the env and a
// second connection to the board, for another machine's worker.
func newSharedEnv(t testing.TB) (*env, *postgres.DB) {
	t.Helper()
	u := pgtest.URL(t)
	ctx, cancel := context.WithCancel(context.Background())
	open := func() *postgres.DB {
		db, err := postgres.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db, worker := open(), open()
	dir := config.Dir(t.TempDir())
	if _, err := config.Init(dir); err != nil {
		t.Fatal(err)
	}
	tok, err := os.ReadFile(dir.WebTokenFile())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Store: db, Token: strings.TrimSpace(string(tok)), Dir: dir, Author: "tester",
		PollInterval: 20 * time.Millisecond, SharedBoard: true, EventsChanged: db.EventsChanged})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Catchup(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); srv.Follow(ctx) }()
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { // before the databases close
		cancel()
		ts.CloseClientConnections()
		ts.Close()
		<-done
	})
	e := &env{dir: dir, srv: srv, ts: ts, token: strings.TrimSpace(string(tok))}
	if tt, ok := t.(*testing.T); ok {
		e.t = tt
	}
	return e, worker
}

// mirror appends the lines of the session file at path after the first
// *have to the ticket's stored transcript, as a worker on a shared board
// does with every line it writes.
func mirror(t testing.TB, db *postgres.DB, ticketID, path string, have *int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for n := int64(0); sc.Scan(); n++ {
		if n >= *have {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
	}
	if err := db.AppendTranscript(context.Background(), ticketID, *have, lines); err != nil {
		t.Fatal(err)
	}
	*have += int64(len(lines))
}

// remoteAgent is a run on another machine of a new ticket demo#1 on the
// shared board: a session file in a sessions directory of its own,
// mirrored to the store by add, and the heartbeat's live writer keeping
// the live file in the store too.
type remoteAgent struct {
	tk  board.Ticket
	run board.Run
	lw  *agentrunner.Live
	add func(m llm.Message)
}

func newRemoteAgent(t testing.TB, worker *postgres.DB) remoteAgent {
	t.Helper()
	ctx := context.Background()
	if _, err := worker.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo",
		Repo: "https://git.example.com/acme/demo.git", DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	tk, err := worker.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Agent at work", State: board.InProgress}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	run, err := worker.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskImplement})
	if err != nil {
		t.Fatal(err)
	}
	path, err := session.Layout{Root: filepath.Join(t.TempDir(), "sessions")}.Transcript(tk.ProjectID, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	f, err := session.Create(path, "/work", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	lw := agentrunner.NewLive(path, nil)
	t.Cleanup(lw.Close)
	lw.SetStore(func(ctx context.Context, data []byte, fresh bool) error {
		return worker.WriteLive(ctx, tk.ID, data, fresh)
	})
	var have int64
	return remoteAgent{tk: tk, run: run, lw: lw, add: func(m llm.Message) {
		appendMsg(t, f, m)
		mirror(t, worker, tk.ID, path, &have)
	}}
}

// TestSharedBoard_ShowsAgentsOfOtherMachines: on a shared board, a
// `bonsai serve` shows the transcript and the message being streamed of an
// agent whose worker runs on another machine (another data directory),
// from the store alone: the page, the live activity with its partial
// message, and the run page.
func TestSharedBoard_ShowsAgentsOfOtherMachines(t *testing.T) {
	t.Parallel()
	e, worker := newSharedEnv(t)
	ctx := context.Background()
	a := newRemoteAgent(t, worker)
	tk, run, lw := a.tk, a.run, a.lw
	a.add(llm.UserText("Work on ticket demo#1: the <flag> parser"))

	c := e.browser(t)
	r := e.get(t, c, "/p/demo/1")
	wantBody(t, r, "Work on ticket demo#1: the &lt;flag&gt; parser", `sse-swap="partial"`)
	if _, err := os.Stat(filepath.Join(e.dir.Sessions(), tk.ProjectID)); err == nil {
		t.Fatal("the server's own sessions directory holds the ticket: the test proves nothing")
	}
	_, size, err := worker.TranscriptSize(ctx, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", e.ts.URL+"/p/demo/1/activity?offset="+itoa64(size), nil)
	s := openStream(t, req, c)

	// The agent streams a message on its machine: the page shows it.
	assistantStart(lw)
	streamDelta(lw, llm.EventTextDelta, 0, "Reading <main.go>")
	ev := nextOf(t, s, "partial")
	for !strings.Contains(ev.data, "Reading &lt;main.go&gt;") {
		ev = nextOf(t, s, "partial")
	}
	streamDelta(lw, llm.EventTextDelta, 0, " first.")
	for !strings.Contains(ev.data, "Reading &lt;main.go&gt; first.") {
		ev = nextOf(t, s, "partial")
	}

	// The message completes: its entry arrives, the partial goes.
	a.add(llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopEnd,
		Content: []llm.Part{llm.Text("Reading main.go first, then done.")}})
	lw.Event(agent.Event{Type: agent.EventMessageEnd, Message: &llm.Message{Role: llm.RoleAssistant}})
	for gotEntry, cleared := false, false; !gotEntry || !cleared; {
		switch ev := s.next(t, 5*time.Second); ev.event {
		case "entry":
			if !strings.Contains(ev.data, "Reading main.go first, then done.") {
				t.Fatalf("entry %q", ev.data)
			}
			gotEntry = true
		case "partial":
			cleared = !strings.Contains(ev.data, "entry-partial")
		}
	}

	// The run page reads the stored transcript too.
	wantBody(t, e.get(t, c, "/runs/"+run.ID), "Work on ticket demo#1", "Reading main.go first, then done.")

	// A second message, then the run ends: the stored live file empties,
	// and the partial goes.
	assistantStart(lw)
	streamDelta(lw, llm.EventTextDelta, 0, "Second message")
	for ev = nextOf(t, s, "partial"); !strings.Contains(ev.data, "Second message"); {
		ev = nextOf(t, s, "partial")
	}
	lw.Close()
	if ev = nextOf(t, s, "partial"); strings.Contains(ev.data, "entry-partial") {
		t.Fatalf("the partial outlives the run: %q", ev.data)
	}
	if data, _, err := worker.Live(ctx, tk.ID); err != nil || len(data) != 0 {
		t.Fatalf("the stored live file after the run: %q, %v", data, err)
	}
}
