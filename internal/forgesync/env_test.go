package forgesync_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/forgesync"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
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

// env is a data directory with a real SQLite store, git worktrees, a fake
// forge serving the project's repository, and the heartbeat wired to it.
type env struct {
	t      testing.TB
	data   string
	db     *sqlite.DB
	ws     *workspace.Provider
	forge  *forgetest.Server
	forges *forgesync.Forges
	runner *scriptedRunner
	remote string
}

func newEnv(t testing.TB, k forge.Kind) *env {
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
	s := forgetest.New(t, k)
	remote := s.GitRepo(t, "acme", "widget", map[string]string{"README.md": "# widget\n"})
	fs := forgesync.New(forgesync.Options{
		Board: db, Hosts: map[string]forge.Host{s.Host(): {Kind: k}},
		Getenv: func(v string) string {
			for _, e := range forge.TokenEnv(k) {
				if v == e {
					return forgetest.Token
				}
			}
			return ""
		},
		TicketURL: func(r board.Ref) string { return "http://bonsai.test/t/" + r.Project + "/" + itoa(r.Number) },
	})
	return &env{t: t, data: data, db: db, ws: ws, forge: s, forges: fs, runner: &scriptedRunner{t: t}, remote: remote}
}

func itoa(n int) string { return strconv.Itoa(n) }

// beat runs one heartbeat.
func (e *env) beat() heartbeat.Report {
	e.t.Helper()
	h, err := heartbeat.New(heartbeat.Options{
		Store: e.db, Workspaces: e.ws, Runner: e.runner,
		LockFile: filepath.Join(e.data, "heartbeat.lock"), StateFile: filepath.Join(e.data, "heartbeat.json"),
		Sessions: filepath.Join(e.data, "sessions"), DefaultModel: "anthropic/claude-sonnet-4-5",
		MaxDuration: time.Minute, WorkerID: "test", PullRequests: e.forges,
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

// project creates the pr-mode project on the fake forge's repository.
func (e *env) project() board.Project {
	e.t.Helper()
	p, err := e.db.CreateProject(context.Background(), board.Project{Slug: "demo", Name: "Demo", Repo: e.remote, DefaultBranch: "main", Active: true,
		Agent: board.AgentSettings{Land: board.LandPR}})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) ticket(title string, state board.State, criteria ...string) board.Ticket {
	e.t.Helper()
	t, err := e.db.CreateTicket(context.Background(), board.Ticket{ProjectSlug: "demo", Title: title, Description: "Please " + title,
		Criteria: criteria, State: state, Plan: "1. Do it.", Priority: board.DefaultPriority}, board.Human)
	if err != nil {
		e.t.Fatal(err)
	}
	return t
}

func (e *env) get(ref board.Ref) board.Ticket {
	e.t.Helper()
	t, err := e.db.Ticket(context.Background(), ref)
	if err != nil {
		e.t.Fatal(err)
	}
	return t
}

func (e *env) landing(ref board.Ref) board.Landing {
	e.t.Helper()
	l, err := e.db.Landing(context.Background(), ref)
	if err != nil {
		e.t.Fatal(err)
	}
	return l
}

// lastComment returns the newest comment of ref.
func (e *env) lastComment(ref board.Ref) board.Comment {
	e.t.Helper()
	cs, err := e.db.Comments(context.Background(), ref)
	if err != nil || len(cs) == 0 {
		e.t.Fatalf("comments: %v (%d)", err, len(cs))
	}
	return cs[len(cs)-1]
}

// call runs a ticket tool of the job.
func call(t testing.TB, ctx context.Context, job heartbeat.Job, name string, args any) string {
	t.Helper()
	raw, _ := json.Marshal(args)
	for _, tl := range job.Tools {
		if tl.Name() == name {
			r, err := tl.Run(ctx, raw, nil)
			if err != nil || r.IsError {
				t.Fatalf("%s: %v %+v", name, err, r)
			}
			return ""
		}
	}
	t.Fatalf("no tool %s", name)
	return ""
}

// commit writes a file in the job's worktree and commits it.
func commit(t testing.TB, ctx context.Context, job heartbeat.Job, file, content, msg string) {
	t.Helper()
	var out strings.Builder
	script := "printf '%s' '" + content + "' > " + file + " && git add " + file + " && git -c user.name=agent -c user.email=agent@example.invalid commit -q -m '" + msg + "'"
	exit, err := job.Workspace.Exec.Shell(ctx, script, executor.RunOptions{Output: &out})
	if err != nil || exit.Code != 0 {
		t.Fatalf("commit: exit %d, %v\n%s", exit.Code, err, out.String())
	}
}

// submit moves the job's ticket to VERIFICATION with evidence.
func submit(t testing.TB, ctx context.Context, job heartbeat.Job, evidence string) {
	t.Helper()
	var ev []map[string]string
	for _, c := range job.Ticket.Criteria {
		ev = append(ev, map[string]string{"criterion": c, "evidence": evidence})
	}
	call(t, ctx, job, "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": ev})
}

// forgesyncWithoutToken is the env's Forges with no token configured.
func forgesyncWithoutToken(e *env) *forgesync.Forges {
	return forgesync.New(forgesync.Options{Board: e.db, Hosts: map[string]forge.Host{e.forge.Host(): {Kind: e.forge.Kind}}})
}

func mustComments(t testing.TB, e *env, ref board.Ref) []board.Comment {
	t.Helper()
	cs, err := e.db.Comments(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
