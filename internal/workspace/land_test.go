package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

var approver = workspace.Identity{Name: "Pat Person", Email: "pat@example.com"}

// agentWork prepares ticket 1 and commits a change of file on its branch
// in the worktree, as the agent would.
func agentWork(t *testing.T, p *workspace.Provider, repo, file, content string) *workspace.Workspace {
	t.Helper()
	ws := prepare(t, p, project(repo), ticket(1, "Add greeting"))
	write(t, filepath.Join(ws.Root, file), content)
	gittest.Run(t, ws.Root, "add", ".")
	gittest.Run(t, ws.Root, "commit", "-q", "-m", "agent: "+file)
	return ws
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// personCommit commits a change on the repository's main, as a person.
func personCommit(t *testing.T, repo, file, content string) string {
	t.Helper()
	write(t, filepath.Join(repo, file), content)
	gittest.Run(t, repo, "add", ".")
	gittest.Run(t, repo, "commit", "-q", "-m", "person: "+file)
	return gittest.Run(t, repo, "rev-parse", "HEAD")
}

func land(t *testing.T, p *workspace.Provider, repo string, ws *workspace.Workspace, style board.LandStyle) (workspace.Landed, error) {
	t.Helper()
	rv, err := p.Review(context.Background(), project(repo), 1, ws.Branch)
	if err != nil {
		return workspace.Landed{}, err
	}
	return p.Land(context.Background(), project(repo), workspace.LandRequest{Number: 1, Branch: ws.Branch, Tip: rv.Tip, Style: style,
		Message: "Add greeting (demo#1)\n\nAcceptance criteria:\n- it greets", Person: approver})
}

func TestLand_StylesOnAnUnmovedDefaultBranch(t *testing.T) {
	t.Parallel()
	for _, style := range []board.LandStyle{board.LandSquash, board.LandMergeCommit, board.LandRebase} {
		t.Run(style.String(), func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			p, _, data := newProvider(t)
			ws := agentWork(t, p, repo, "hello.txt", "hello\n")
			head := gittest.Run(t, ws.Root, "rev-parse", "HEAD")
			l, err := land(t, p, repo, ws, style)
			if err != nil {
				t.Fatal(err)
			}
			if got := gittest.Run(t, repo, "rev-parse", "main"); got != l.Commit {
				t.Fatalf("main = %s, Landed.Commit = %s", got, l.Commit)
			}
			// The person's checkout of main was updated with the push.
			if b, err := os.ReadFile(filepath.Join(repo, "hello.txt")); err != nil || string(b) != "hello\n" {
				t.Errorf("hello.txt in the person's checkout = %q, %v", b, err)
			}
			if st := gittest.Run(t, repo, "status", "--porcelain"); st != "" {
				t.Errorf("the person's checkout is not clean after landing:\n%s", st)
			}
			switch style {
			case board.LandSquash:
				if l.FastForward || l.Commit == head {
					t.Errorf("squash landed %+v, want a new commit", l)
				}
				who := gittest.Run(t, repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s|%P", "main")
				initial := gittest.Run(t, repo, "rev-parse", "main~1")
				if want := "Pat Person <pat@example.com>|Pat Person <pat@example.com>|Add greeting (demo#1)|" + initial; who != want {
					t.Errorf("squash commit = %q, want %q", who, want)
				}
				if body := gittest.Run(t, repo, "log", "-1", "--format=%b", "main"); !strings.Contains(body, "- it greets") {
					t.Errorf("squash body = %q", body)
				}
			default:
				if !l.FastForward || l.Commit != head {
					t.Errorf("%s landed %+v, want a fast-forward to %s", style, l, head)
				}
			}
			// The clone knows the landed commit at once.
			if got := gittest.Run(t, filepath.Join(data, "projects", "demo"), "rev-parse", "origin/main"); got != l.Commit {
				t.Errorf("the clone's origin/main = %s, want %s", got, l.Commit)
			}
			if des, _ := os.ReadDir(filepath.Join(data, "projects", ".landing")); len(des) != 0 {
				t.Errorf("the scratch repository was left behind: %v", des)
			}
		})
	}
}

func TestLand_StylesOnADefaultBranchThatMoved(t *testing.T) {
	t.Parallel()
	for _, style := range []board.LandStyle{board.LandSquash, board.LandMergeCommit, board.LandRebase} {
		t.Run(style.String(), func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			p, _, _ := newProvider(t)
			ws := agentWork(t, p, repo, "hello.txt", "hello\n")
			head := gittest.Run(t, ws.Root, "rev-parse", "HEAD")
			moved := personCommit(t, repo, "other.txt", "meanwhile\n")
			l, err := land(t, p, repo, ws, style)
			if err != nil {
				t.Fatal(err)
			}
			if l.FastForward {
				t.Errorf("%s: FastForward over a moved branch", style)
			}
			// Nothing the person pushed is rewritten: their commit stays an
			// ancestor of main, and both changes are there.
			gittest.Run(t, repo, "merge-base", "--is-ancestor", moved, "main")
			for f, want := range map[string]string{"hello.txt": "hello\n", "other.txt": "meanwhile\n"} {
				if got := gittest.Run(t, repo, "show", "main:"+f); got+"\n" != want {
					t.Errorf("%s on main = %q", f, got)
				}
			}
			parents := strings.Fields(gittest.Run(t, repo, "log", "-1", "--format=%P", "main"))
			who := gittest.Run(t, repo, "log", "-1", "--format=%an|%cn", "main")
			switch style {
			case board.LandSquash:
				if len(parents) != 1 || parents[0] != moved || who != "Pat Person|Pat Person" {
					t.Errorf("squash: parents %v, by %s", parents, who)
				}
			case board.LandMergeCommit:
				if len(parents) != 2 || parents[0] != moved || parents[1] != head || who != "Pat Person|Pat Person" {
					t.Errorf("merge: parents %v (want %s %s), by %s", parents, moved, head, who)
				}
			case board.LandRebase:
				// The agent's commit, replayed: its author kept, the person
				// as committer.
				if len(parents) != 1 || parents[0] != moved || who != "Test|Pat Person" {
					t.Errorf("rebase: parents %v, by %s", parents, who)
				}
			}
		})
	}
}

func TestLand_ConflictChangesNothing(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	p, _, _ := newProvider(t)
	ws := agentWork(t, p, repo, "README.md", "# agent\n")
	moved := personCommit(t, repo, "README.md", "# person\n")
	for _, style := range []board.LandStyle{board.LandSquash, board.LandMergeCommit, board.LandRebase} {
		_, err := land(t, p, repo, ws, style)
		var ce *workspace.ConflictError
		if !errors.As(err, &ce) || len(ce.Files) != 1 || ce.Files[0] != "README.md" || ce.Base != "main" {
			t.Fatalf("%s: err = %v, want a conflict in README.md", style, err)
		}
		if got := gittest.Run(t, repo, "rev-parse", "main"); got != moved {
			t.Errorf("%s: main moved to %s", style, got)
		}
	}
}

func TestLand_RefusedPushes(t *testing.T) {
	t.Parallel()
	t.Run("dirty checkout", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t)
		p, _, _ := newProvider(t)
		ws := agentWork(t, p, repo, "hello.txt", "hello\n")
		write(t, filepath.Join(repo, "README.md"), "# edited, not committed\n")
		before := gittest.Run(t, repo, "rev-parse", "main")
		_, err := land(t, p, repo, ws, board.LandSquash)
		var pe *workspace.PushRejectedError
		if !errors.As(err, &pe) || pe.Reason != workspace.RejectedDirtyCheckout {
			t.Fatalf("err = %v, want a push refused for the dirty checkout", err)
		}
		if got := gittest.Run(t, repo, "rev-parse", "main"); got != before {
			t.Errorf("main moved to %s", got)
		}
	})
	t.Run("protected", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t)
		bare := filepath.Join(t.TempDir(), "remote.git")
		gittest.Run(t, repo, "clone", "-q", "--bare", repo, bare)
		hook := filepath.Join(bare, "hooks", "pre-receive")
		write(t, hook, "#!/bin/sh\necho 'GH006: Protected branch update failed for refs/heads/main.' >&2\nexit 1\n")
		os.Chmod(hook, 0o755)
		p, _, _ := newProvider(t)
		ws := agentWork(t, p, bare, "hello.txt", "hello\n")
		_, err := land(t, p, bare, ws, board.LandMergeCommit)
		var pe *workspace.PushRejectedError
		if !errors.As(err, &pe) || pe.Reason != workspace.RejectedProtected {
			t.Fatalf("err = %v, want a push refused for a protected branch", err)
		}
	})
	t.Run("remote down", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t)
		p, _, _ := newProvider(t)
		ws := agentWork(t, p, repo, "hello.txt", "hello\n")
		os.RemoveAll(repo)
		_, err := land(t, p, repo, ws, board.LandSquash)
		var re *workspace.RepoError
		if !errors.As(err, &re) {
			t.Fatalf("err = %v, want a RepoError", err)
		}
	})
}

func TestLand_BareRemoteAndAlreadyThere(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, repo, "clone", "-q", "--bare", repo, bare)
	p, _, _ := newProvider(t)
	ws := agentWork(t, p, bare, "hello.txt", "hello\n")
	l, err := land(t, p, bare, ws, board.LandMergeCommit)
	if err != nil || !l.FastForward {
		t.Fatalf("Land = %+v, %v", l, err)
	}
	again, err := land(t, p, bare, ws, board.LandSquash)
	if err != nil || !again.AlreadyThere || again.Commit != l.Commit {
		t.Fatalf("landing again = %+v, %v; want AlreadyThere at %s", again, err, l.Commit)
	}
}

func TestLand_RemovesStaleScratchRepositories(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	p, _, data := newProvider(t)
	ws := agentWork(t, p, repo, "hello.txt", "hello\n")
	stale, fresh := filepath.Join(data, "projects", ".landing", "demo-1-old"), filepath.Join(data, "projects", ".landing", "demo-1-busy")
	for _, d := range []string{stale, fresh} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(stale, old, old)
	if _, err := land(t, p, repo, ws, board.LandSquash); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale scratch repository is still there: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a recent one (another landing's) was removed: %v", err)
	}
}

func TestLand_BranchOnlyInTheRepository(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	p, _, data := newProvider(t)
	ws := agentWork(t, p, repo, "hello.txt", "hello\n")
	if _, err := p.Push(context.Background(), project(repo), ws); err != nil {
		t.Fatal(err)
	}
	// The clone is made again: the branch is only in the repository.
	ws.Close()
	if err := os.RemoveAll(filepath.Join(data, "projects", "demo")); err != nil {
		t.Fatal(err)
	}
	l, err := land(t, p, repo, ws, board.LandSquash)
	if err != nil || gittest.Run(t, repo, "show", "main:hello.txt") != "hello" {
		t.Fatalf("Land = %+v, %v", l, err)
	}
	_, err = p.Review(context.Background(), project(repo), 2, "bonsai/demo/2-gone")
	if err == nil || !strings.Contains(err.Error(), "neither in the project's clone nor in") {
		t.Errorf("a branch that is nowhere: %v", err)
	}
}

// TestLand_RunsNothingTheAgentConfigured: the agent's worktree shares the
// clone's config, so an agent may set hooks, filters and merge drivers
// there and commit attributes that name them; landing runs on the host,
// so none of them may run.
func TestLand_RunsNothingTheAgentConfigured(t *testing.T) {
	t.Parallel()
	for _, style := range []board.LandStyle{board.LandSquash, board.LandMergeCommit, board.LandRebase} {
		t.Run(style.String(), func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			p, _, data := newProvider(t)
			ws := prepare(t, p, project(repo), ticket(1, "Add greeting"))
			marker := filepath.Join(t.TempDir(), "ran")
			evil := filepath.Join(t.TempDir(), "evil.sh")
			write(t, evil, "#!/bin/sh\necho \"$0 $*\" >> "+marker+"\ncat\n")
			if err := os.Chmod(evil, 0o755); err != nil {
				t.Fatal(err)
			}
			hooks := filepath.Join(t.TempDir(), "hooks")
			if err := os.Mkdir(hooks, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, h := range []string{"pre-commit", "commit-msg", "post-commit", "pre-push", "post-merge", "post-rewrite",
				"reference-transaction", "post-checkout", "pre-rebase", "prepare-commit-msg", "pre-merge-commit"} {
				if err := os.Symlink(evil, filepath.Join(hooks, h)); err != nil {
					t.Fatal(err)
				}
			}
			for _, kv := range [][2]string{
				{"core.hooksPath", hooks},
				{"filter.evil.clean", evil}, {"filter.evil.smudge", evil},
				{"merge.evil.driver", evil + " %O %A %B"},
				{"diff.evil.textconv", evil},
				{"core.fsmonitor", evil},
			} {
				gittest.Run(t, ws.Root, "config", kv[0], kv[1])
			}
			write(t, filepath.Join(ws.Root, ".gitattributes"), "* filter=evil merge=evil diff=evil\n")
			write(t, filepath.Join(ws.Root, "hello.txt"), "hello\n")
			gittest.Run(t, ws.Root, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "add", ".")
			gittest.Run(t, ws.Root, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "commit", "-q", "--no-verify", "-m", "agent: attributes")
			// The config is live for git in the clone: a hook runs there.
			gittest.Run(t, filepath.Join(data, "projects", "demo"), "hook", "run", "pre-commit")
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("the agent's hook did not run in the clone, so this test proves nothing: %v", err)
			}
			os.Remove(marker)
			personCommit(t, repo, "other.txt", "moved on\n")

			l, err := land(t, p, repo, ws, style)
			if err != nil {
				t.Fatal(err)
			}
			if got := gittest.Run(t, repo, "rev-parse", "main"); got != l.Commit {
				t.Fatalf("main = %s, want the landed %s", got, l.Commit)
			}
			if b, err := os.ReadFile(marker); err == nil {
				t.Fatalf("landing ran what the agent configured:\n%s", b)
			}
		})
	}
}
