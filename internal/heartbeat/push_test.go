package heartbeat_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// bareRepo makes a bare repository with one commit on main and returns
// its directory and its file:// URL.
func bareRepo(t *testing.T) (dir, url string) {
	t.Helper()
	src := gittest.Repo(t, filepath.Join(t.TempDir(), "src"), map[string]string{"README.md": "# shared\n"})
	dir = filepath.Join(t.TempDir(), "shared.git")
	gittest.Run(t, filepath.Dir(dir), "clone", "-q", "--bare", src, dir)
	return dir, "file://" + filepath.ToSlash(dir)
}

// sharedProject adds project slug on repository url.
func (e *env) sharedProject(slug, url string) {
	e.t.Helper()
	_, err := e.db.CreateProject(context.Background(), board.Project{Slug: slug, Name: slug, Repo: url, DefaultBranch: "main", Active: true})
	if err != nil {
		e.t.Fatal(err)
	}
}

// sh runs script in the job's worktree and returns its output.
func sh(ctx context.Context, job heartbeat.Job, script string) (string, error) {
	var out strings.Builder
	exit, err := job.Workspace.Exec.Shell(ctx, script, executor.RunOptions{Output: &out})
	if err == nil && exit.Code != 0 {
		err = fmt.Errorf("%s: exit %d: %s", script, exit.Code, out.String())
	}
	return strings.TrimSpace(out.String()), err
}

// commitWork is an agent that checks its worktree holds no other
// project's commits, then commits a file of its own project.
func commitWork(t *testing.T) func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
	return func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		slug := job.Project.Slug
		log, err := sh(ctx, job, "git log --format=%s "+job.Workspace.Base+"..HEAD")
		if err != nil {
			return heartbeat.Outcome{}, err
		}
		for _, s := range strings.Split(log, "\n") {
			if s != "" && s != "work of "+slug {
				t.Errorf("the worktree of %s on %s starts from another project's commit %q", slug, job.Workspace.Branch, s)
			}
		}
		if _, err := sh(ctx, job, fmt.Sprintf("echo %s >> %s.txt && git add . && git commit -q -m 'work of %s'", slug, slug, slug)); err != nil {
			return heartbeat.Outcome{}, err
		}
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
}

// TestBeat_ProjectsSharingARepoKeepTheirBranches puts three projects on
// one repository, each with a ticket #1 of the same title. Project a is
// worked and pushed first; then all three run at once. No worktree starts
// from another project's commits, all three pushes land, and each
// project's work is on its own branch of the remote.
func TestBeat_ProjectsSharingARepoKeepTheirBranches(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bare, url := bareRepo(t)
	slugs := []string{"a", "b", "c"}
	for _, s := range slugs {
		e.sharedProject(s, url)
		e.ticket(s, "Fix the login", board.InProgress)
	}
	e.runner.run = commitWork(t)
	e.opts.MaxConcurrent = 3

	e.opts.Project = "a"
	if rep := e.beat(); len(rep.Runs) != 1 || !rep.Runs[0].Pushed {
		t.Fatalf("beat of a = %+v", rep.Runs)
	}
	e.opts.Project = ""
	rep := e.beat()
	if len(rep.Runs) != 3 {
		t.Fatalf("beat = %+v, want three runs", rep.Runs)
	}
	for _, r := range rep.Runs {
		if r.Status != board.RunCompleted || !r.Pushed || r.PushError != "" {
			t.Errorf("run %s = %+v, want completed and pushed", r.Ticket, r)
		}
	}
	branches := map[string]bool{}
	for _, s := range slugs {
		tk := e.get(board.Ref{Project: s, Number: 1})
		branches[tk.Branch] = true
		log := gittest.Run(t, bare, "log", "--format=%s", "main.."+tk.Branch)
		for _, c := range strings.Split(log, "\n") {
			if c != "work of "+s {
				t.Errorf("remote branch %s of %s has %q, want only its own work", tk.Branch, s, log)
				break
			}
		}
	}
	if len(branches) != 3 {
		t.Errorf("branches = %v, want one per project", branches)
	}
}

// TestBeat_FailedPushIsOnTheTicket makes the remote refuse every push: the
// run's report says why, the ticket gets one comment from the runtime
// however often it fails, heartbeat.json keeps the failure for `bonsai
// status`, and a push that works clears it.
func TestBeat_FailedPushIsOnTheTicket(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bare, url := bareRepo(t)
	hook := filepath.Join(bare, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'pushes are closed today' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.sharedProject("demo", url)
	tk := e.ticket("demo", "Fix the login", board.InProgress)
	e.runner.run = commitWork(t)

	for beat := 1; beat <= 2; beat++ {
		rep := e.beat()
		r := rep.Runs[0]
		if r.Pushed || !strings.Contains(r.PushError, "pushes are closed today") {
			t.Fatalf("beat %d: report = %+v, want the push error", beat, r)
		}
		f, ok := heartbeat.ReadState(e.opts.StateFile).Pushes["demo#1"]
		if !ok || f.Failures != beat || f.Branch != e.get(tk.Ref()).Branch || !strings.Contains(f.Error, "pushes are closed today") {
			t.Fatalf("beat %d: state has push failure %+v (%v)", beat, f, ok)
		}
	}
	var notes []board.Comment
	for _, c := range e.comments(tk.Ref()) {
		if strings.Contains(c.Content, "could not be pushed") {
			notes = append(notes, c)
		}
	}
	if len(notes) != 1 || notes[0].AuthorType != board.System || !strings.Contains(notes[0].Content, "pushes are closed today") ||
		!strings.Contains(notes[0].Content, e.get(tk.Ref()).Branch) || strings.Contains(notes[0].Content, e.data) {
		t.Fatalf("push comments = %+v, want one from the runtime", notes)
	}

	os.Remove(hook)
	rep := e.beat()
	if !rep.Runs[0].Pushed || rep.Runs[0].PushError != "" {
		t.Fatalf("beat after the fix = %+v", rep.Runs[0])
	}
	if f, ok := heartbeat.ReadState(e.opts.StateFile).Pushes["demo#1"]; ok {
		t.Errorf("the push failure outlived a working push: %+v", f)
	}
	if n := strings.Count(gittest.Run(t, bare, "log", "--format=%s", "main.."+e.get(tk.Ref()).Branch), "work of demo"); n != 3 {
		t.Errorf("remote has %d commits of the ticket, want 3", n)
	}
}
