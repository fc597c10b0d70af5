package trackersync_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
	"github.com/bonsai-run/bonsai/internal/trackersync"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// scriptedRunner is the agent: each run calls the next step, and a run
// past the script fails the test (no model call is expected).
type scriptedRunner struct {
	t     testing.TB
	mu    sync.Mutex
	steps []func(ctx context.Context, job heartbeat.Job) heartbeat.Outcome
	jobs  []heartbeat.Job
}

func (r *scriptedRunner) RunAgent(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
	r.mu.Lock()
	n := len(r.jobs)
	r.jobs = append(r.jobs, job)
	var step func(context.Context, heartbeat.Job) heartbeat.Outcome
	if n < len(r.steps) {
		step = r.steps[n]
	}
	r.mu.Unlock()
	if step == nil {
		r.t.Errorf("unexpected agent run %d on %s", n+1, job.Ticket.Ref())
		return heartbeat.Outcome{Status: board.RunError, Error: "unexpected run"}, nil
	}
	return step(ctx, job), nil
}

func (r *scriptedRunner) runs() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.jobs)
}

// env is a data directory with a real SQLite store, git worktrees and the
// heartbeat wired to a Syncer.
type env struct {
	t      testing.TB
	data   string
	db     *sqlite.DB
	ws     *workspace.Provider
	sync   *trackersync.Syncer
	runner *scriptedRunner
	// prs, when set, is the pr landing mode's forge side the beats use.
	prs heartbeat.PullRequests
}

func newEnv(t testing.TB, hosts map[string]forge.Host, vars map[string]string) *env {
	t.Helper()
	data := t.TempDir()
	db, err := sqlitetest.Open(context.Background(), filepath.Join(data, "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ws, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	sy := trackersync.New(trackersync.Options{Board: db, Hosts: hosts, Getenv: func(v string) string { return vars[v] },
		TicketURL: func(r board.Ref) string { return "http://bonsai.test/t/" + r.Project }})
	return &env{t: t, data: data, db: db, ws: ws, sync: sy, runner: &scriptedRunner{t: t}}
}

// beat runs one heartbeat.
func (e *env) beat() heartbeat.Report {
	e.t.Helper()
	h, err := heartbeat.New(heartbeat.Options{
		Store: e.db, Workspaces: e.ws, Runner: e.runner,
		LockFile: filepath.Join(e.data, "heartbeat.lock"), StateFile: filepath.Join(e.data, "heartbeat.json"),
		Sessions: filepath.Join(e.data, "sessions"), DefaultModel: "anthropic/claude-sonnet-4-5",
		MaxDuration: time.Minute, WorkerID: "test", Trackers: e.sync,
		Idle:         func() string { return "board-unchanged" }, // what the CLI records for an idle beat
		PullRequests: e.prs,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	rep, err := h.Beat(context.Background())
	if err != nil {
		e.t.Fatalf("Beat: %v", err)
	}
	return rep
}

func (e *env) project(slug, repo string, a board.AgentSettings) board.Project {
	e.t.Helper()
	p, err := e.db.CreateProject(context.Background(), board.Project{Slug: slug, Name: slug, Repo: repo, DefaultBranch: "main", Active: true, Agent: a})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) get(ref board.Ref) board.Ticket {
	e.t.Helper()
	t, err := e.db.Ticket(context.Background(), ref)
	if err != nil {
		e.t.Fatal(err)
	}
	return t
}

func (e *env) comments(ref board.Ref) []board.Comment {
	e.t.Helper()
	cs, err := e.db.Comments(context.Background(), ref)
	if err != nil {
		e.t.Fatal(err)
	}
	return cs
}

// ask is an agent step that asks question and ends its run.
func ask(t testing.TB, question string) func(ctx context.Context, job heartbeat.Job) heartbeat.Outcome {
	return func(ctx context.Context, job heartbeat.Job) heartbeat.Outcome {
		call(t, ctx, job, "ticket_ask", map[string]any{"question": question})
		return heartbeat.Outcome{Status: board.RunCompleted}
	}
}

// call runs a ticket tool of the job.
func call(t testing.TB, ctx context.Context, job heartbeat.Job, name string, args any) {
	t.Helper()
	raw, _ := json.Marshal(args)
	for _, tl := range job.Tools {
		if tl.Name() == name {
			r, err := tl.Run(ctx, raw, nil)
			if err != nil || r.IsError {
				t.Fatalf("%s: %v %+v", name, err, r)
			}
			return
		}
	}
	t.Fatalf("no tool %s", name)
}
