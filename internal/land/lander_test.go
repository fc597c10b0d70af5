package land_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/land"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

var pat = land.Person{Name: "Pat Person", Email: "pat@example.com"}

// env is a board in SQLite, a workspace provider and a project whose
// repository is a local one with main checked out.
type env struct {
	t    *testing.T
	db   *sqlite.DB
	ws   *workspace.Provider
	repo string
	proj board.Project
}

func newEnv(t *testing.T, edit func(*board.AgentSettings)) *env {
	t.Helper()
	data := t.TempDir()
	db, err := sqlitetest.Open(context.Background(), filepath.Join(data, "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ws, err := workspace.New(workspace.Options{Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) }})
	if err != nil {
		t.Fatal(err)
	}
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"README.md": "# demo\n"})
	p := board.Project{Slug: "demo", Name: "Demo", Repo: repo, DefaultBranch: "main", Active: true}
	if edit != nil {
		edit(&p.Agent)
	}
	if p, err = db.CreateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, db: db, ws: ws, repo: repo, proj: p}
}

// verified makes a ticket whose agent committed file on its branch and
// moved it to VERIFICATION.
func (e *env) verified(title, file, content string) board.Ticket {
	e.t.Helper()
	ctx := context.Background()
	tk, err := e.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: title, Criteria: []string{"it greets"},
		State: board.InProgress, Priority: board.DefaultPriority}, board.Human)
	if err != nil {
		e.t.Fatal(err)
	}
	w, err := e.ws.Prepare(ctx, e.proj, tk)
	if err != nil {
		e.t.Fatal(err)
	}
	w.Close()
	if err := os.WriteFile(filepath.Join(w.Root, file), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	gittest.Run(e.t, w.Root, "add", ".")
	gittest.Run(e.t, w.Root, "commit", "-q", "-m", "agent work")
	if _, err := e.db.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{Branch: &w.Branch}, board.System); err != nil {
		e.t.Fatal(err)
	}
	if tk, err = e.db.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.Verification, Actor: board.Agent}, "agent"); err != nil {
		e.t.Fatal(err)
	}
	e.record(tk, w.Branch)
	return tk
}

// record records the ticket's branch for review, as the heartbeat does
// once the run that moved it to VERIFICATION ended.
func (e *env) record(tk board.Ticket, branch string) board.Review {
	e.t.Helper()
	ctx := context.Background()
	rv, err := e.ws.Review(ctx, e.proj, tk.Number, branch)
	if err != nil {
		e.t.Fatal(err)
	}
	r, err := e.db.SetReview(ctx, board.Review{Ref: tk.Ref(), Base: rv.Base, Tip: rv.Tip})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) lander() *land.Lander {
	return land.New(land.Options{Store: e.db, Git: e.ws})
}

func (e *env) lastComment(ref board.Ref) board.Comment {
	e.t.Helper()
	cs, err := e.db.Comments(context.Background(), ref)
	if err != nil || len(cs) == 0 {
		e.t.Fatalf("comments: %v, %d", err, len(cs))
	}
	return cs[len(cs)-1]
}

func TestApprove_MergeModeLandsAndIsDone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(a *board.AgentSettings) { a.Land = board.LandMerge })
	tk := e.verified("Add greeting", "hello.txt", "hello\n")
	r, err := e.lander().Approve(context.Background(), land.Approval{Ref: tk.Ref(), Person: pat, Note: "Nice."})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != land.Landed || r.Ticket.State != board.Done {
		t.Fatalf("result = %+v", r)
	}
	main := gittest.Run(t, e.repo, "rev-parse", "main")
	if r.Landing.Commit != main || r.Landing.Mode != board.LandMerge || r.Landing.Error != "" || r.Landing.LandedAt.IsZero() {
		t.Errorf("landing = %+v, want commit %s", r.Landing, main)
	}
	stored, err := e.db.Landing(context.Background(), tk.Ref())
	if err != nil || stored.Commit != main {
		t.Errorf("stored landing = %+v, %v", stored, err)
	}
	if got := gittest.Run(t, e.repo, "log", "-1", "--format=%s|%an", "main"); got != "Add greeting (demo#1)|Pat Person" {
		t.Errorf("main's commit = %q", got)
	}
	if c := e.lastComment(tk.Ref()); c.Kind != board.KindApproval || c.Content != "Nice." || c.AuthorName != "Pat Person" {
		t.Errorf("last comment = %+v, want the approval note", c)
	}
	// Landing a landed ticket again does nothing.
	again, err := e.lander().Land(context.Background(), land.Approval{Ref: tk.Ref(), Person: pat})
	if err != nil || again.Outcome != land.Landed || gittest.Run(t, e.repo, "rev-parse", "main") != main {
		t.Errorf("land again = %+v, %v", again, err)
	}
}

func TestApprove_FailureStaysInVerificationThenLandRetries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil) // auto: a local repository merges
	tk := e.verified("Add greeting", "hello.txt", "hello\n")
	os.WriteFile(filepath.Join(e.repo, "README.md"), []byte("# not committed\n"), 0o644)
	before := gittest.Run(t, e.repo, "rev-parse", "main")

	r, err := e.lander().Approve(context.Background(), land.Approval{Ref: tk.Ref(), Person: pat})
	var f *land.Failure
	if !errors.As(err, &f) || r.Outcome != land.Failed || board.ErrorCode(err) != board.ECONFLICT {
		t.Fatalf("Approve = %+v, %v; want a Failure", r, err)
	}
	if got, _ := e.db.Ticket(context.Background(), tk.Ref()); got.State != board.Verification {
		t.Errorf("ticket is %s, want VERIFICATION", got.State)
	}
	if gittest.Run(t, e.repo, "rev-parse", "main") != before {
		t.Error("main moved")
	}
	c := e.lastComment(tk.Ref())
	for _, want := range []string{"uncommitted changes", "Fix: commit or stash them there", "bonsai ticket land demo#1", "stays in VERIFICATION"} {
		if !strings.Contains(c.Content, want) {
			t.Errorf("comment lacks %q:\n%s", want, c.Content)
		}
	}
	if l, _ := e.db.Landing(context.Background(), tk.Ref()); l.Error == "" || l.Mode != board.LandMerge || l.Commit != "" {
		t.Errorf("landing after the failure = %+v", l)
	}

	gittest.Run(t, e.repo, "checkout", "--", "README.md")
	r, err = e.lander().Land(context.Background(), land.Approval{Ref: tk.Ref(), Person: pat})
	if err != nil || r.Outcome != land.Landed || r.Ticket.State != board.Done || r.Landing.Error != "" {
		t.Fatalf("Land after the fix = %+v, %v", r, err)
	}
}

func TestApprove_ConflictReturnsTheTicketToTheAgent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(a *board.AgentSettings) { a.Land = board.LandMerge; a.LandStyle = board.LandRebase })
	tk := e.verified("Reword the readme", "README.md", "# agent\n")
	os.WriteFile(filepath.Join(e.repo, "README.md"), []byte("# person\n"), 0o644)
	gittest.Run(t, e.repo, "commit", "-qam", "person")
	r, err := e.lander().Approve(context.Background(), land.Approval{Ref: tk.Ref(), Person: pat})
	if err != nil || r.Outcome != land.Returned {
		t.Fatalf("Approve = %+v, %v; want Returned", r, err)
	}
	got, _ := e.db.Ticket(context.Background(), tk.Ref())
	if got.State != board.InProgress || got.SubState != board.SubReturned {
		t.Errorf("ticket is %s/%s, want IN_PROGRESS/returned", got.State, got.SubState)
	}
	c := e.lastComment(tk.Ref())
	if c.Kind != board.KindFeedback || c.AuthorType != board.System || !strings.Contains(c.Content, "`README.md`") ||
		!strings.Contains(c.Content, "git merge origin/main") {
		t.Errorf("feedback = %+v", c)
	}
	if l, _ := e.db.Landing(context.Background(), tk.Ref()); !strings.Contains(l.Error, "conflicts") {
		t.Errorf("landing error = %q", l.Error)
	}
}

func TestApprove_NoneModeSaysWhereTheBranchIs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(a *board.AgentSettings) { a.Land = board.LandNone })
	tk := e.verified("Add greeting", "hello.txt", "hello\n")
	before := gittest.Run(t, e.repo, "rev-parse", "main")
	r, err := e.lander().Approve(context.Background(), land.Approval{Ref: tk.Ref(), Person: pat})
	if err != nil || r.Outcome != land.Landed || r.Ticket.State != board.Done || r.Landing.Mode != board.LandNone {
		t.Fatalf("Approve = %+v, %v", r, err)
	}
	if gittest.Run(t, e.repo, "rev-parse", "main") != before {
		t.Error("none mode moved main")
	}
	if !strings.Contains(r.Message, "git merge "+tk.Branch) && !strings.Contains(r.Message, "bonsai/demo/1-add-greeting") {
		t.Errorf("message = %q", r.Message)
	}
	// Landing the DONE ticket later merges it.
	r, err = e.lander().Land(context.Background(), land.Approval{Ref: tk.Ref(), Person: pat})
	if err != nil || r.Landing.Commit == "" || gittest.Run(t, e.repo, "rev-parse", "main") != r.Landing.Commit {
		t.Fatalf("Land = %+v, %v", r, err)
	}
}

func TestApprove_RefusesATicketNotInVerification(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tk, err := e.db.CreateTicket(context.Background(), board.Ticket{ProjectSlug: "demo", Title: "t", Priority: 2}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.lander().Approve(context.Background(), land.Approval{Ref: tk.Ref(), Person: pat})
	if board.ErrorCode(err) != board.EREFUSED {
		t.Fatalf("err = %v, want refused", err)
	}
}
