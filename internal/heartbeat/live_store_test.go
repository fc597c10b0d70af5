package heartbeat_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// TestBeat_LiveStoreOnASharedBoard: on a board several machines share, a
// job's LiveStore writes the ticket's live file to the store (for a
// `bonsai serve` on another machine); on one machine's board it is nil,
// the file alone.
func TestBeat_LiveStoreOnASharedBoard(t *testing.T) {
	t.Parallel()
	// A shared board refuses a local repository: git reaches this one
	// through a URL it rewrites, set in the environment of its remote
	// commands.
	const url = "https://git.example.com/acme/demo.git"
	e := newEnv(t)
	repo := e.project("real", nil).Repo // no tickets: never picked
	e.project("demo", func(p *board.Project) { p.Repo = url })
	ws, err := workspace.New(workspace.Options{
		Projects: filepath.Join(e.data, "projects"), Worktrees: filepath.Join(e.data, "worktrees"),
		Open:      func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
		RemoteEnv: []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=url." + repo + ".insteadOf", "GIT_CONFIG_VALUE_0=" + url},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Workspaces = ws
	tk := e.ticket("demo", "Work", board.InProgress)

	var got []byte
	var stored bool
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		if stored = job.LiveStore != nil; stored {
			if err := job.LiveStore(ctx, []byte(`{"type":"message","at":42}`+"\n"), true); err != nil {
				return heartbeat.Outcome{}, err
			}
			if err := job.LiveStore(ctx, []byte(`{"type":"done"}`+"\n"), false); err != nil {
				return heartbeat.Outcome{}, err
			}
			data, _, err := e.db.Live(ctx, tk.ID)
			if err != nil {
				return heartbeat.Outcome{}, err
			}
			got = data
		}
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}

	e.opts.SharedBoard, e.opts.Transcripts = true, e.db
	if rep := e.beat(); len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunCompleted {
		t.Fatalf("shared board: beat = %+v", rep.Runs)
	}
	if want := `{"type":"message","at":42}` + "\n" + `{"type":"done"}` + "\n"; !stored || string(got) != want {
		t.Fatalf("shared board: LiveStore set %v, the store's live file %q, want %q", stored, got, want)
	}

	e.opts.SharedBoard = false
	if rep := e.beat(); len(rep.Runs) != 1 {
		t.Fatalf("one machine: beat = %+v", rep.Runs)
	}
	if stored {
		t.Fatal("one machine's board: the job has a LiveStore")
	}
}
