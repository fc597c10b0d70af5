package agentrunner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// machine is one machine of a shared board: its own data directory,
// store connection, clones and scripted model.
type machine struct {
	data  string
	db    *postgres.DB
	model *llmtest.Model
	opts  heartbeat.Options
}

func newMachine(t *testing.T, url, name string) *machine {
	t.Helper()
	db, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	data := t.TempDir()
	ws, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	m := &machine{data: data, db: db, model: llmtest.NewModel()}
	runner, err := agentrunner.New(agentrunner.Options{
		Model: func(id string) (llm.Model, llm.Info, error) {
			return m.model, llm.Info{ID: id, ContextWindow: 200000}, nil
		},
		OpenDir: func(dir string) (executor.Executor, error) { return local.New(dir, local.Options{}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	m.opts = heartbeat.Options{
		Store: db, Workspaces: ws, Runner: runner, Leases: db, Transcripts: db, SharedBoard: true,
		WorkerID: name + ":1", LockFile: filepath.Join(data, "heartbeat.lock"), Sessions: filepath.Join(data, "sessions"),
		StateFile: filepath.Join(data, "heartbeat.json"), DefaultModel: "llmtest/scripted", MaxDuration: time.Minute,
		Reap: local.KillMarked,
	}
	return m
}

func (m *machine) beat(t *testing.T) heartbeat.RunReport {
	t.Helper()
	h, err := heartbeat.New(m.opts)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := h.Beat(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 {
		t.Fatalf("beat ran %d tickets, want 1: %+v", len(rep.Runs), rep)
	}
	return rep.Runs[0]
}

// file is the machine's copy of the ticket's transcript ("" when none).
func (m *machine) file(t *testing.T, tk board.Ticket) []byte {
	t.Helper()
	path, err := session.Layout{Root: m.opts.Sessions}.Transcript(tk.ProjectID, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}

// stored is the file the store's lines of the ticket make.
func stored(t *testing.T, db *postgres.DB, tk board.Ticket) []byte {
	t.Helper()
	var b []byte
	err := db.TranscriptLines(context.Background(), tk.ID, 0, func(n int64, line []byte) error {
		b = append(append(b, line...), '\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sharedTicket makes a project on a repository both machines clone over
// HTTP, and an IN_PROGRESS ticket in it.
func sharedTicket(t *testing.T, db *postgres.DB) board.Ticket {
	t.Helper()
	ctx := context.Background()
	gh := forgetest.New(t, forge.GitHub)
	repo := gh.GitRepo(t, "acme", "demo", map[string]string{"README.md": "# demo\n"})
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: repo, DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Shared", State: board.InProgress, Priority: 2}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestShared_SecondMachineResumesFromTheStore: a ticket worked on machine
// A is resumed on machine B, another data directory with no transcript
// file: B's model request carries A's conversation, read from the store,
// and both machines' files are the store's lines byte for byte. A file
// with lines the store lacks is kept aside, not resumed.
func TestShared_SecondMachineResumesFromTheStore(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	a, b := newMachine(t, url, "a"), newMachine(t, url, "b")
	tk := sharedTicket(t, a.db)

	// Each run comments, which is progress: the no-progress guard keeps
	// out of the way.
	a.model.Push(call("c1", "ticket_comment", map[string]any{"kind": "status", "content": "Looked on A."}), say("Read the README on machine A."))
	if r := a.beat(t); r.Status != board.RunCompleted {
		t.Fatalf("run on A = %+v", r)
	}
	if got, want := a.file(t, tk), stored(t, a.db, tk); len(want) == 0 || !bytes.Equal(got, want) {
		t.Fatalf("A's file (%d bytes) is not the store's transcript (%d bytes)", len(got), len(want))
	}

	b.model.Push(call("c2", "ticket_comment", map[string]any{"kind": "status", "content": "Went on on B."}), say("Went on on machine B."))
	if r := b.beat(t); r.Status != board.RunCompleted {
		t.Fatalf("run on B = %+v", r)
	}
	msgs := b.model.Requests()[0].Messages
	var sawCall, sawText bool
	for _, m := range msgs {
		sawCall = sawCall || m.Role == llm.RoleToolResult && m.ToolCallID == "c1"
		sawText = sawText || m.Role == llm.RoleAssistant && m.Text() == "Read the README on machine A."
	}
	if !sawCall || !sawText || len(msgs) != 5 {
		t.Fatalf("B's request does not carry A's run (tool result %v, last words %v, %d messages, want 5)", sawCall, sawText, len(msgs))
	}
	if got, want := b.file(t, tk), stored(t, b.db, tk); !bytes.Equal(got, want) {
		t.Fatalf("B's file is not the store's transcript:\n%s\n---\n%s", got, want)
	}

	// A's copy is behind the store now, and holds a line the store does
	// not: it does not win.
	path, _ := session.Layout{Root: a.opts.Sessions}.Transcript(tk.ProjectID, tk.ID)
	stale := append(a.file(t, tk), `{"type":"custom","id":"ffffffff","parentId":null,"timestamp":"2026-01-02T03:04:05.000Z","customType":"x","data":1}`+"\n"...)
	if err := os.WriteFile(path, stale, 0o600); err != nil {
		t.Fatal(err)
	}
	a.model.Push(say("Back on machine A."))
	if r := a.beat(t); r.Status != board.RunCompleted {
		t.Fatalf("run on A again = %+v", r)
	}
	if n := len(a.model.Requests()[2].Messages); n != 9 {
		t.Errorf("A's second run sent %d messages, want 9 (both runs and its task)", n)
	}
	if got, want := a.file(t, tk), stored(t, a.db, tk); !bytes.Equal(got, want) {
		t.Error("A's file is not the store's transcript after its second run")
	}
	kept, _ := filepath.Glob(path + ".local-*")
	if len(kept) != 1 {
		t.Fatalf("the stale copy was not kept aside: %v", kept)
	}
	if b, _ := os.ReadFile(kept[0]); !bytes.Equal(b, stale) {
		t.Error("the copy kept aside is not the stale file")
	}
	cs, err := a.db.Comments(context.Background(), tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	var noted bool
	for _, c := range cs {
		noted = noted || strings.Contains(c.Content, "lines the board's store does not hold") && strings.Contains(c.Content, filepath.Base(kept[0]))
	}
	if !noted {
		t.Errorf("no note on the ticket names the copy kept aside: %+v", cs)
	}
}

// TestShared_OtherWriterStopsTheRun: when another writer appends to the
// ticket's stored transcript during a run, the run's next line is refused
// and the run ends with an error saying so; the store holds no line of
// the run after the other writer's.
func TestShared_OtherWriterStopsTheRun(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	a := newMachine(t, url, "a")
	tk := sharedTicket(t, a.db)
	ctx := context.Background()

	hold := make(chan struct{})
	turn := say("This answer is never stored.")
	turn.Wait = hold
	a.model.Push(turn)
	other := `{"type":"custom","id":"0therw1t","parentId":null,"timestamp":"2026-01-02T03:04:05.000Z","customType":"other","data":1}`
	go func() {
		defer close(hold)
		for len(a.model.Requests()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		n, _, err := a.db.TranscriptSize(ctx, tk.ID)
		if err == nil {
			err = a.db.AppendTranscript(ctx, tk.ID, n, [][]byte{[]byte(other)})
		}
		if err != nil {
			t.Error(err)
		}
	}()
	r := a.beat(t)
	if r.Status != board.RunError || !strings.Contains(r.Error, "another worker wrote this ticket's transcript") {
		t.Fatalf("run = %s %q, want an error naming the other writer", r.Status, r.Error)
	}
	lines := bytes.Split(bytes.TrimSuffix(stored(t, a.db, tk), []byte("\n")), []byte("\n"))
	if last := string(lines[len(lines)-1]); last != other {
		t.Errorf("the stored transcript ends with %s, want the other writer's line", last)
	}
	if f := a.file(t, tk); bytes.Contains(f, []byte("never stored")) {
		t.Error("the local file holds the line the store refused")
	}
}
