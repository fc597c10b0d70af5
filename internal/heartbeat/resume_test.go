package heartbeat_test

import (
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
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// machine is one machine of a shared board: its own data directory,
// workspaces and worker, on the env's store.
func (e *env) machine(worker string, runner heartbeat.AgentRunner) (heartbeat.Options, *workspace.Provider) {
	e.t.Helper()
	data := e.t.TempDir()
	ws, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open:        func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
		SharedBoard: true,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	o := e.opts
	o.Workspaces, o.Runner, o.WorkerID = ws, runner, worker
	o.LockFile, o.StateFile, o.Sessions = filepath.Join(data, "heartbeat.lock"), filepath.Join(data, "heartbeat.json"), filepath.Join(data, "sessions")
	o.Leases, o.SharedBoard = e.db, true
	return o, ws
}

func beatWith(t *testing.T, o heartbeat.Options) heartbeat.RunReport {
	t.Helper()
	h, err := heartbeat.New(o)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := h.Beat(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 {
		t.Fatalf("beat = %+v, want one run", rep.Runs)
	}
	return rep.Runs[0]
}

// TestBeat_SharedBoardResumesFromThePushedBranch: two machines on one
// board and one remote. B's run, stopped because its lease was lost, still
// pushes its commit; A, whose worktree still holds an older run's
// uncommitted file, works on from B's push, and the ticket says where the
// file was set aside.
func TestBeat_SharedBoardResumesFromThePushedBranch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := forgetest.New(t, forge.GitHub)
	url := srv.GitRepo(t, "o", "demo", map[string]string{"README.md": "# demo\n"})
	e.sharedProject("demo", url)
	tk := e.ticket("demo", "Work", board.InProgress)
	var seen []string
	commit := func(file string, lose bool) func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		return func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
			ls, err := sh(ctx, job, "ls")
			if err != nil {
				return heartbeat.Outcome{}, err
			}
			seen = strings.Fields(ls)
			if _, err := sh(ctx, job, "echo "+file+" >> "+file+" && git add . && git commit -q -m "+file); err != nil {
				return heartbeat.Outcome{}, err
			}
			if !lose {
				return heartbeat.Outcome{Status: board.RunCompleted}, nil
			}
			// Another beat ends the lease (as if it had expired).
			if err := e.db.ReleaseLease(ctx, tk.Ref(), "b:2"); err != nil {
				t.Error(err)
			}
			<-ctx.Done()
			return heartbeat.Outcome{Status: board.RunInterrupted, Error: context.Cause(ctx).Error()}, nil
		}
	}
	a, wsA := e.machine("a:1", &fakeRunner{run: commit("a.txt", false)})
	b, _ := e.machine("b:2", &fakeRunner{run: commit("b.txt", true)})
	b.LeaseTTL = 30 * time.Millisecond

	if r := beatWith(t, a); !r.Pushed {
		t.Fatalf("A's run = %+v, want pushed", r)
	}
	wip := filepath.Join(wsA.WorktreePath("demo", tk.Number), "wip.txt")
	if err := os.WriteFile(wip, []byte("half done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := beatWith(t, b)
	if r.Status == board.RunCompleted || !r.Pushed || r.PushError != "" {
		t.Fatalf("B's run = %+v, want stopped and pushed", r)
	}
	if strings.Join(seen, " ") != "README.md a.txt" {
		t.Errorf("B's worktree held %v, want A's push", seen)
	}
	branch := e.get(tk.Ref()).Branch
	bHead := gittest.Run(t, srv.BareDir("o", "demo"), "rev-parse", branch)

	if r := beatWith(t, a); r.Status != board.RunCompleted || !r.Pushed {
		t.Fatalf("A's second run = %+v, want completed and pushed", r)
	}
	if strings.Join(seen, " ") != "README.md a.txt b.txt" {
		t.Errorf("A's worktree held %v, want B's push without the leftover", seen)
	}
	if got := gittest.Run(t, srv.BareDir("o", "demo"), "rev-parse", branch+"~1"); got != bHead {
		t.Errorf("A's push is on %s, want on B's %s", got, bHead)
	}
	var note string
	for _, c := range e.comments(tk.Ref()) {
		if strings.Contains(c.Content, "refs/bonsai/leftovers/") {
			note = c.Content
		}
	}
	if !strings.Contains(note, "worker `a:1`") || !strings.Contains(note, "git stash apply refs/bonsai/leftovers/"+branch+"/") {
		t.Errorf("note on the ticket = %q, want the worker and the leftovers' ref", note)
	}
}
