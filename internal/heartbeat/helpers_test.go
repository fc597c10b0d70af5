package heartbeat_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// fakeRunner is a hand-written AgentRunner: run decides what each job does.
type fakeRunner struct {
	run   func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error)
	ready func(model string) error

	mu   sync.Mutex
	jobs []renderedJob
}

// renderedJob is a job with the prompts the in-process runner would
// render from its brief.
type renderedJob struct {
	heartbeat.Job
	SystemPrompt string
	Prompt       string
}

func (f *fakeRunner) RunAgent(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
	r := renderedJob{Job: job, SystemPrompt: agentrunner.SystemPrompt(ctx, job), Prompt: agentjob.TaskPrompt(job)}
	f.mu.Lock()
	f.jobs = append(f.jobs, r)
	f.mu.Unlock()
	if f.run == nil {
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	return f.run(ctx, job)
}

func (f *fakeRunner) Ready(model string) error {
	if f.ready == nil {
		return nil
	}
	return f.ready(model)
}

// Spent charges a dead beat's run the way the in-process runner does,
// from the transcript the run wrote.
func (f *fakeRunner) Spent(sessionFile string, since time.Time) (board.Usage, error) {
	return new(agentrunner.Runner).Spent(sessionFile, since)
}

func (f *fakeRunner) calls() []renderedJob {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]renderedJob(nil), f.jobs...)
}

// env is a data directory with a real SQLite store and git workspaces.
type env struct {
	t      testing.TB
	data   string
	db     *sqlite.DB
	ws     *workspace.Provider
	runner *fakeRunner
	opts   heartbeat.Options
}

func newEnv(t testing.TB) *env {
	t.Helper()
	data := t.TempDir()
	db, err := sqlitetest.Open(context.Background(), filepath.Join(data, "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ws, err := workspace.New(workspace.Options{
		Projects:  filepath.Join(data, "projects"),
		Worktrees: filepath.Join(data, "worktrees"),
		Open: func(root string) (executor.Executor, error) {
			return local.New(root, local.Options{})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, data: data, db: db, ws: ws, runner: &fakeRunner{}}
	e.opts = heartbeat.Options{
		Store: db, Workspaces: ws, Runner: e.runner,
		LockFile:      filepath.Join(data, "heartbeat.lock"),
		StateFile:     filepath.Join(data, "heartbeat.json"),
		Sessions:      filepath.Join(data, "sessions"),
		DefaultModel:  "anthropic/claude-sonnet-4-5",
		MaxConcurrent: 2, MaxDuration: time.Minute, WorkerID: "test", Reap: local.KillMarked,
	}
	return e
}

// beat runs one beat with the env's options.
func (e *env) beat() heartbeat.Report {
	e.t.Helper()
	h, err := heartbeat.New(e.opts)
	if err != nil {
		e.t.Fatal(err)
	}
	rep, err := h.Beat(context.Background())
	if err != nil {
		e.t.Fatalf("Beat: %v", err)
	}
	return rep
}

// project creates a project on a new repository with one commit on main.
func (e *env) project(slug string, edit func(p *board.Project)) board.Project {
	e.t.Helper()
	repo := gittest.Repo(e.t, filepath.Join(e.t.TempDir(), slug), map[string]string{
		"README.md":                       "# " + slug + "\n",
		"AGENTS.md":                       "Run `make test` before committing.\n",
		".bonsai/SOUL.md":                 "You are terse and dry.\n",
		".bonsai/skills/release/SKILL.md": "---\nname: release\ndescription: How to cut a release of this project\n---\nSteps.\n",
	})
	p := board.Project{Slug: slug, Name: slug, Repo: repo, DefaultBranch: "main", Active: true}
	if edit != nil {
		edit(&p)
	}
	p, err := e.db.CreateProject(context.Background(), p)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// ticket creates a ticket in state.
func (e *env) ticket(slug, title string, state board.State, criteria ...string) board.Ticket {
	e.t.Helper()
	t, err := e.db.CreateTicket(context.Background(), board.Ticket{
		ProjectSlug: slug, Title: title, Description: "Please do " + title, Criteria: criteria,
		State: state, Priority: board.DefaultPriority,
	}, board.Human)
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

func (e *env) comments(ref board.Ref) []board.Comment {
	e.t.Helper()
	cs, err := e.db.Comments(context.Background(), ref)
	if err != nil {
		e.t.Fatal(err)
	}
	return cs
}

func (e *env) runs(ref board.Ref) []board.Run {
	e.t.Helper()
	rs, err := e.db.Runs(context.Background(), ref)
	if err != nil {
		e.t.Fatal(err)
	}
	return rs
}

func (e *env) humanComment(ref board.Ref, text string) {
	e.t.Helper()
	_, err := e.db.AddComment(context.Background(), ref, board.Comment{
		AuthorType: board.Human, AuthorName: "alice", Kind: board.KindNote, Content: text,
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// call runs the named ticket tool of job with args.
func call(t testing.TB, ctx context.Context, job heartbeat.Job, name string, args any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	for _, tl := range job.Tools {
		if tl.Name() == name {
			r, err := tl.Run(ctx, raw, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return r
		}
	}
	t.Fatalf("job has no tool %s", name)
	return tool.Result{}
}

// shell runs a command in the job's worktree through its executor.
func shell(t *testing.T, ctx context.Context, job heartbeat.Job, script string) {
	t.Helper()
	var out strings.Builder
	exit, err := job.Workspace.Exec.Shell(ctx, script, executor.RunOptions{Output: &out})
	if err != nil || exit.Code != 0 {
		t.Fatalf("%s: exit %d, %v\n%s", script, exit.Code, err, out.String())
	}
}
