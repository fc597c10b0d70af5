package heartbeat_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// personCommit commits content to file on the repository's main.
func personCommit(t *testing.T, repo, file, content string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(repo, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, repo, "add", file)
	gittest.Run(t, repo, "commit", "-q", "-m", "person: "+file)
	return gittest.Run(t, repo, "rev-parse", "HEAD")
}

// Before VERIFICATION the runtime brings the default branch in: a clean
// merge lands in the branch before the verify command runs; a conflict is
// refused with what to do, and nothing changes.
func TestKeepCurrent_BeforeVerification(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.project("demo", func(p *board.Project) { p.Agent.Verify = "test -f other.txt" })
	tk := e.ticket("demo", "Add a feature", board.InProgress, "feature.txt exists")
	crit := []map[string]string{{"criterion": "feature.txt exists", "evidence": "created it"}}
	var moved string
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		shell(t, ctx, job, "echo one > README.md && git commit -q -am 'agent readme' && echo f > feature.txt && git add . && git commit -q -m feature")
		// A person changes main while the agent works: one clean change,
		// then one that conflicts. The runtime fetched at the start.
		moved = personCommit(t, p.Repo, "other.txt", "meanwhile\n")
		gittest.Run(t, job.Workspace.Clone, "fetch", "-q", "origin")
		r := call(t, ctx, job, "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": crit})
		if r.IsError {
			t.Errorf("move after a clean change on main = %s", r.Text())
		}
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	if got := e.get(tk.Ref()); got.State != board.Verification {
		t.Fatalf("state = %s, want VERIFICATION (the verify command sees other.txt only once main is merged in)", got.State)
	}
	// The ticket branch (pushed to the repository) has main's change.
	gittest.Run(t, p.Repo, "merge-base", "--is-ancestor", moved, "bonsai/demo/1-add-a-feature")

	tk2 := e.ticket("demo", "Reword", board.InProgress, "feature.txt exists")
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		shell(t, ctx, job, "echo agent > other.txt && echo f > feature.txt && git add . && git commit -q -m reword")
		personCommit(t, p.Repo, "other.txt", "person\n")
		gittest.Run(t, job.Workspace.Clone, "fetch", "-q", "origin")
		head := gittest.Run(t, job.Workspace.Root, "rev-parse", "HEAD")
		for range 2 {
			r := call(t, ctx, job, "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": crit})
			if !r.IsError || !strings.Contains(r.Text(), "`other.txt`") || !strings.Contains(r.Text(), "git merge origin/main") {
				t.Errorf("move with a conflict = %s", r.Text())
			}
		}
		if got := gittest.Run(t, job.Workspace.Root, "rev-parse", "HEAD"); got != head {
			t.Errorf("HEAD moved to %s", got)
		}
		if st := gittest.Run(t, job.Workspace.Root, "status", "--porcelain"); st != "" {
			t.Errorf("worktree after the refused move:\n%s", st)
		}
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.opts.Ticket = tk2.Ref()
	e.beat()
	if got := e.get(tk2.Ref()); got.State != board.InProgress {
		t.Errorf("state = %s, want IN_PROGRESS", got.State)
	}
	// Said once on the ticket; the next run is a conflict task.
	n := 0
	for _, c := range e.comments(tk2.Ref()) {
		if c.Kind == board.KindFeedback && c.AuthorType == board.System && strings.Contains(c.Content, "`other.txt`") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d conflict comments, want 1", n)
	}
	if plans, err := mustHeartbeat(t, e).Plan(context.Background()); err != nil || len(plans) != 1 || plans[0].Task != board.TaskConflict {
		t.Errorf("plans = %+v, %v; want a conflict task", plans, err)
	}
}

// A ticket the runtime sent back for a conflict is a conflict task, and
// its prompt says how to bring the default branch in.
func TestKeepCurrent_ConflictTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", func(p *board.Project) { p.Agent.UpdateStyle = board.UpdateRebase })
	tk := e.ticket("demo", "Reword", board.InProgress)
	ctx := context.Background()
	if _, err := e.db.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.Verification, Actor: board.Agent}, "agent"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.InProgress, Actor: board.System, Feedback: "conflicts in `README.md`"}, "bonsai"); err != nil {
		t.Fatal(err)
	}
	plans, err := mustHeartbeat(t, e).Plan(ctx)
	if err != nil || len(plans) != 1 || plans[0].Task != board.TaskConflict {
		t.Fatalf("plans = %+v, %v; want a conflict task", plans, err)
	}
	e.beat()
	jobs := e.runner.calls()
	if len(jobs) != 1 || jobs[0].Task != board.TaskConflict || !strings.Contains(jobs[0].Prompt, "git rebase origin/main") {
		t.Fatalf("job = %+v", jobs)
	}
	if rs := e.runs(tk.Ref()); len(rs) != 1 || rs[0].Task != board.TaskConflict {
		t.Errorf("runs = %+v", rs)
	}
	// A person's feedback afterwards makes it a feedback task again.
	if _, err := e.db.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.Verification, Actor: board.Agent}, "agent"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.InProgress, Actor: board.Human, Feedback: "more"}, "alice"); err != nil {
		t.Fatal(err)
	}
	if plans, _ := mustHeartbeat(t, e).Plan(ctx); len(plans) != 1 || plans[0].Task != board.TaskFeedback {
		t.Errorf("plans = %+v; want a feedback task", plans)
	}
}

func mustHeartbeat(t *testing.T, e *env) *heartbeat.Heartbeat {
	t.Helper()
	h, err := heartbeat.New(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
