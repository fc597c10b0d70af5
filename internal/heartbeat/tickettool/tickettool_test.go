package tickettool_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/heartbeat/tickettool"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
	"github.com/bonsai-run/bonsai/internal/tool"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// setup returns the tools of a run on an IN_PROGRESS ticket whose worktree
// (a plain repository with a "base" branch) has one commit beyond base.
func setup(t *testing.T, verify string, criteria ...string) (*tickettool.Session, *sqlite.DB, board.Ref) {
	s, db, ref, _ := setupDir(t, verify, criteria...)
	return s, db, ref
}

func setupDir(t *testing.T, verify string, criteria ...string) (*tickettool.Session, *sqlite.DB, board.Ref, string) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlitetest.Open(ctx, filepath.Join(t.TempDir(), "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "initial")
	git(t, dir, "branch", "base")
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "add b")
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "demo", Repo: dir, DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "T", Criteria: criteria, State: board.InProgress, Priority: 2}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := local.New(dir, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := tickettool.New(tickettool.Config{Board: db, Ref: tk.Ref(), Exec: ex, Base: "base", Verify: verify,
		RunUsage: func() board.Usage {
			return board.Usage{InputTokens: 1200, OutputTokens: 100, CacheReadTokens: 200, CostUSD: 0.25}
		}})
	return s, db, tk.Ref(), dir
}

func run(t *testing.T, s *tickettool.Session, name string, args any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	for _, tl := range s.Tools() {
		if tl.Name() == name {
			r, err := tl.Run(context.Background(), raw, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return r
		}
	}
	t.Fatalf("no tool %s", name)
	return tool.Result{}
}

func TestTools_SchemasAndDescriptions(t *testing.T) {
	s, _, _ := setup(t, "")
	var names []string
	for _, tl := range s.Tools() {
		names = append(names, tl.Name())
		var schema map[string]any
		if err := json.Unmarshal(tl.Schema(), &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: schema %s: %v", tl.Name(), tl.Schema(), err)
		}
		if len(tl.Description()) < 100 {
			t.Errorf("%s: description too short: %q", tl.Name(), tl.Description())
		}
	}
	if got := strings.Join(names, ","); got != "ticket_comment,ticket_ask,ticket_plan,ticket_move" {
		t.Errorf("tools = %s", got)
	}
}

func TestMove_Verification(t *testing.T) {
	crit := []string{"b.txt exists", "tests pass"}
	evidence := []map[string]string{{"criterion": "b.txt exists", "evidence": "ls shows it"}, {"criterion": "Tests pass", "evidence": "go test ok"}}
	for _, tc := range []struct {
		name     string
		verify   string
		args     map[string]any
		prepare  func(dir string)
		wantErr  string
		wantText string
	}{
		{name: "MissingEvidence", args: map[string]any{"to": "VERIFICATION", "criteria": evidence[:1]}, wantErr: `no evidence for criterion 2 ("tests pass")`},
		{name: "EmptyEvidence", args: map[string]any{"to": "VERIFICATION", "criteria": []map[string]string{evidence[0], {"criterion": "tests pass", "evidence": " "}}}, wantErr: "criterion 2"},
		{name: "VerifyFails", verify: "echo compiling; echo FAIL: TestLogin >&2; exit 3", args: map[string]any{"to": "VERIFICATION", "criteria": evidence},
			wantErr: "exited with code 3. End of its output:\ncompiling\nFAIL: TestLogin"},
		{name: "UnknownState", args: map[string]any{"to": "DONE"}, wantErr: "to must be IN_PROGRESS or VERIFICATION"},
		{name: "BadArguments", args: map[string]any{"to": "VERIFICATION", "extra": 1}, wantErr: "invalid arguments for ticket_move"},
		{name: "Passes", verify: "test -f b.txt", args: map[string]any{"to": "VERIFICATION", "criteria": evidence},
			wantText: "moved to VERIFICATION"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, db, ref := setup(t, tc.verify, crit...)
			r := run(t, s, "ticket_move", tc.args)
			if tc.wantErr != "" {
				if !r.IsError || !strings.Contains(r.Text(), tc.wantErr) {
					t.Fatalf("result = %+v, want an error containing %q", r, tc.wantErr)
				}
				if got, _ := db.Ticket(context.Background(), ref); got.State != board.InProgress {
					t.Errorf("ticket moved to %s despite the refusal", got.State)
				}
				return
			}
			if r.IsError || !strings.Contains(r.Text(), tc.wantText) || !r.Terminate {
				t.Fatalf("result = %+v", r)
			}
			cs, _ := db.Comments(context.Background(), ref)
			c := cs[len(cs)-1].Content
			for _, want := range []string{"1. **b.txt exists**", "2. **tests pass**\n   go test ok", "`test -f b.txt` exited 0", "1 file changed", "commits (1)", "add b", "ticket so far: 1500 tokens (1200 in, 100 out, 200 cache), $0.25"} {
				if !strings.Contains(c, want) {
					t.Errorf("completion comment lacks %q:\n%s", want, c)
				}
			}
			if e := s.Effects(); e.MovedTo != board.Verification {
				t.Errorf("effects = %+v", e)
			}
		})
	}
}

func TestMove_VerificationNeedsCleanCommittedWork(t *testing.T) {
	args := map[string]any{"to": "VERIFICATION", "criteria": []map[string]string{{"criterion": "x", "evidence": "y"}}}
	s, _, _, dir := setupDir(t, "", "x")
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("untracked\n"), 0o644)
	if r := run(t, s, "ticket_move", args); !r.IsError || !strings.Contains(r.Text(), "uncommitted changes") || !strings.Contains(r.Text(), "?? new.txt") {
		t.Errorf("dirty worktree: %+v", r)
	}
	os.Remove(filepath.Join(dir, "new.txt"))
	git(t, dir, "branch", "-f", "base", "HEAD")
	if r := run(t, s, "ticket_move", args); !r.IsError || !strings.Contains(r.Text(), "no commit beyond base") {
		t.Errorf("no commit: %+v", r)
	}
}

func TestPlanAndComment(t *testing.T) {
	s, db, ref := setup(t, "")
	ctx := context.Background()
	if r := run(t, s, "ticket_plan", map[string]string{"plan": "short"}); !r.IsError {
		t.Errorf("a near-empty plan was saved: %+v", r)
	}
	if r := run(t, s, "ticket_plan", map[string]string{"plan": "1. change b.txt\n2. test"}); r.IsError {
		t.Fatalf("plan: %s", r.Text())
	}
	if got, _ := db.Ticket(ctx, ref); !strings.Contains(got.Plan, "change b.txt") {
		t.Errorf("plan not saved: %q", got.Plan)
	}
	if r := run(t, s, "ticket_comment", map[string]string{"kind": "question", "content": "?"}); !r.IsError || !strings.Contains(r.Text(), "ticket_ask") {
		t.Errorf("comment of kind question = %+v", r)
	}
	run(t, s, "ticket_comment", map[string]string{"kind": "status", "content": "half done"})
	if r := run(t, s, "ticket_ask", map[string]string{"question": "Which API?"}); !r.Terminate {
		t.Errorf("ticket_ask = %+v", r)
	}
	got, _ := db.Ticket(ctx, ref)
	e := s.Effects()
	if got.SubState != board.SubBlocked || !e.Asked || !e.Planned || len(e.Comments) != 2 {
		t.Errorf("sub-state %q, effects %+v", got.SubState, e)
	}
	// A RESEARCH → IN_PROGRESS move is refused for a ticket already there.
	if r := run(t, s, "ticket_move", map[string]string{"to": "IN_PROGRESS"}); !r.IsError || !strings.Contains(r.Text(), "already in IN_PROGRESS") {
		t.Errorf("move to the current state = %+v", r)
	}
}
