package heartbeat_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// TestBeat_StopWakesTheWatcherOnPostgres stops a run on a Postgres board
// whose beat polls the runs' control once an hour: the store's
// LISTEN/NOTIFY (Options.ControlWake) brings the stop to the run.
func TestBeat_StopWakesTheWatcherOnPostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	repo := filepath.Join(t.TempDir(), "demo")
	if err := gittest.Init(repo, map[string]string{"README.md": "# demo\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "demo", Repo: repo, DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Slow work", State: board.InProgress}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	ws, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	runner := &fakeRunner{run: func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		if _, err := db.RequestStop(ctx, tk.Ref(), "ana"); err != nil {
			t.Errorf("RequestStop: %v", err)
		}
		// The watcher may listen only after the stop's notification:
		// each comment notifies again until the run ends.
		limit := time.After(time.Minute)
		for {
			select {
			case <-ctx.Done():
				return heartbeat.Outcome{Status: board.RunInterrupted}, nil
			case <-limit:
				t.Error("the stop did not reach the run within a minute")
				return heartbeat.Outcome{Status: board.RunCompleted}, nil
			case <-time.After(100 * time.Millisecond):
				_, err := db.AddComment(context.Background(), tk.Ref(), board.Comment{AuthorType: board.System, AuthorName: "test", Kind: board.KindNote, Content: "still working"})
				if err != nil {
					t.Errorf("AddComment: %v", err)
				}
			}
		}
	}}
	hb, err := heartbeat.New(heartbeat.Options{
		Store: db, Workspaces: ws, Runner: runner, WorkerID: "test",
		LockFile: filepath.Join(data, "heartbeat.lock"), StateFile: filepath.Join(data, "heartbeat.json"),
		Sessions: filepath.Join(data, "sessions"), DefaultModel: "anthropic/claude-sonnet-4-5",
		MaxConcurrent: 1, MaxDuration: 5 * time.Minute, Reap: local.KillMarked,
		ControlPoll: time.Hour, ControlWake: db.EventsChanged,
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := hb.Beat(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunStopped {
		t.Fatalf("runs = %+v, want one stopped", rep.Runs)
	}
}
