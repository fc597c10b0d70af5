package workspace_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

func TestUpdate_BringsTheDefaultBranchIn(t *testing.T) {
	t.Parallel()
	for _, style := range []board.UpdateStyle{board.UpdateMerge, board.UpdateRebase} {
		t.Run(style.String(), func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			p, _, _ := newProvider(t)
			ws := agentWork(t, p, repo, "hello.txt", "hello\n")
			if changed, err := workspace.Update(context.Background(), ws, style); err != nil || changed {
				t.Fatalf("Update of a current branch = %v, %v", changed, err)
			}
			moved := personCommit(t, repo, "other.txt", "meanwhile\n")
			ws = prepare(t, p, project(repo), ticket(1, "Add greeting")) // fetches
			changed, err := workspace.Update(context.Background(), ws, style)
			if err != nil || !changed {
				t.Fatalf("Update = %v, %v", changed, err)
			}
			gittest.Run(t, ws.Root, "merge-base", "--is-ancestor", moved, "HEAD")
			parents := strings.Fields(gittest.Run(t, ws.Root, "log", "-1", "--format=%P"))
			if want := map[board.UpdateStyle]int{board.UpdateMerge: 2, board.UpdateRebase: 1}[style]; len(parents) != want {
				t.Errorf("HEAD has %d parents, want %d", len(parents), want)
			}
			if st := gittest.Run(t, ws.Root, "status", "--porcelain"); st != "" {
				t.Errorf("worktree not clean:\n%s", st)
			}
		})
	}
}

func TestUpdate_ConflictLeavesTheWorktreeAsItWas(t *testing.T) {
	t.Parallel()
	for _, style := range []board.UpdateStyle{board.UpdateMerge, board.UpdateRebase} {
		repo := newRepo(t)
		p, _, _ := newProvider(t)
		ws := agentWork(t, p, repo, "README.md", "# agent\n")
		head := gittest.Run(t, ws.Root, "rev-parse", "HEAD")
		personCommit(t, repo, "README.md", "# person\n")
		ws = prepare(t, p, project(repo), ticket(1, "Add greeting"))
		_, err := workspace.Update(context.Background(), ws, style)
		var ce *workspace.ConflictError
		if !errors.As(err, &ce) || strings.Join(ce.Files, ",") != "README.md" || ce.Base != "main" {
			t.Fatalf("%s: err = %v, want a conflict in README.md", style, err)
		}
		if got := gittest.Run(t, ws.Root, "rev-parse", "HEAD"); got != head {
			t.Errorf("%s: HEAD moved to %s", style, got)
		}
		if st := gittest.Run(t, ws.Root, "status", "--porcelain"); st != "" {
			t.Errorf("%s: worktree not clean after the abort:\n%s", style, st)
		}
	}
}
