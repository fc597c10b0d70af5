package workspace_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// BenchmarkLand_Squash measures one squash landing of a one-file change
// into a local repository with main checked out: the fetch, the scratch
// repository, the commit, and the push with its checkout update.
//
//	go test -run '^$' -bench Land -benchtime 20x ./internal/workspace
func BenchmarkLand_Squash(b *testing.B) {
	repo := gittest.Repo(b, filepath.Join(b.TempDir(), "repo"), map[string]string{"README.md": "# demo\n"})
	data := b.TempDir()
	p, err := workspace.New(workspace.Options{Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) }})
	if err != nil {
		b.Fatal(err)
	}
	ws, err := p.Prepare(context.Background(), project(repo), ticket(1, "Bench"))
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		write(b, filepath.Join(ws.Root, fmt.Sprintf("f%d.txt", i)), "x\n")
		gittest.Run(b, ws.Root, "add", ".")
		gittest.Run(b, ws.Root, "commit", "-q", "-m", fmt.Sprintf("change %d", i))
		b.StartTimer()
		rv, err := p.Review(context.Background(), project(repo), 1, ws.Branch)
		if err != nil {
			b.Fatal(err)
		}
		l, err := p.Land(context.Background(), project(repo), workspace.LandRequest{Number: 1, Branch: ws.Branch, Tip: rv.Tip,
			Style: board.LandSquash, Message: "bench", Person: approver})
		if err != nil || l.AlreadyThere {
			b.Fatal(l, err)
		}
	}
}
