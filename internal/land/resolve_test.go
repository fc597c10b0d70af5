package land_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/land"
)

// forge answers Available as told; Resolve asks nothing else.
type forge bool

func (f forge) Available(board.Project) bool { return bool(f) }
func (f forge) Merge(context.Context, land.MergeRequest) (land.Merged, error) {
	return land.Merged{}, errors.New("not used")
}

func TestResolve(t *testing.T) {
	local := board.Project{Repo: "/srv/app"}
	remote := board.Project{Repo: "https://github.com/o/app.git"}
	for _, c := range []struct {
		name string
		p    board.Project
		prs  land.PullRequests
		want board.LandMode
	}{
		{"local path merges", local, forge(true), board.LandMerge},
		{"remote on a forge with a token", remote, forge(true), board.LandPR},
		{"remote without a token", remote, forge(false), board.LandNone},
		{"no forge support", remote, nil, board.LandNone},
	} {
		if got := land.Resolve(c.p, c.prs); got != c.want {
			t.Errorf("%s: Resolve = %q, want %q", c.name, got, c.want)
		}
	}
	for _, m := range []board.LandMode{board.LandMerge, board.LandPR, board.LandNone} {
		p := remote
		p.Agent.Land = m
		if got := land.Resolve(p, nil); got != m {
			t.Errorf("explicit %s resolved to %s", m, got)
		}
	}
}

func TestCommitMessage(t *testing.T) {
	tk := board.Ticket{ProjectSlug: "demo", Number: 3, Title: "Add a\n --verbose flag", Criteria: []string{"prints each step", "documented\nin --help"}}
	got := land.CommitMessage(tk, land.Person{Name: "Pat Person", Email: "pat@example.com"}).String()
	want := "Add a --verbose flag (demo#3)\n\nAcceptance criteria:\n- prints each step\n- documented in --help\n\nTicket: demo#3\nApproved-by: Pat Person <pat@example.com>\n"
	if got != want {
		t.Errorf("message =\n%s\nwant\n%s", got, want)
	}
}

func TestApprove_ProtectedBranchSaysHowToLand(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(a *board.AgentSettings) { a.Land = board.LandMerge })
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, e.repo, "clone", "-q", "--bare", e.repo, bare)
	hook := filepath.Join(bare, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'GH006: Protected branch update failed for refs/heads/main.' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	repo := bare
	if _, err := e.db.UpdateProject(context.Background(), "demo", board.ProjectPatch{Repo: &repo}); err != nil {
		t.Fatal(err)
	}
	e.proj.Repo = bare
	tk := e.verified("Add greeting", "hello.txt", "hello\n")
	_, err := e.lander().Approve(context.Background(), land.Approval{Ref: tk.Ref(), Person: pat})
	var f *land.Failure
	if !errors.As(err, &f) || !strings.Contains(f.Cause, "`main` is a protected branch") || !strings.Contains(f.Fix, "bonsai project edit demo --land pr") {
		t.Fatalf("err = %v", err)
	}
	c := e.lastComment(tk.Ref())
	if c.AuthorType != board.System || !strings.Contains(c.Content, "Fix: land through a pull request") || !strings.Contains(c.Content, "bonsai ticket land demo#1") {
		t.Errorf("comment = %s", c.Content)
	}
}
