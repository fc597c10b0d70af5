package heartbeat_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// idle is an agent that answers in words and does nothing else.
func idle(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
	return heartbeat.Outcome{Status: board.RunCompleted, Summary: "I am still thinking about it.",
		Usage: board.Usage{InputTokens: 1000, OutputTokens: 50, CostUSD: 0.02}}, nil
}

// guardQuestions returns the runtime's questions that blocked the ticket
// after two runs.
func (e *env) guardQuestions(ref board.Ref) []board.Comment {
	e.t.Helper()
	var qs []board.Comment
	for _, c := range e.comments(ref) {
		if c.AuthorType == board.Agent && c.Kind == board.KindQuestion && strings.HasPrefix(c.Content, "I stopped: my last two runs") {
			qs = append(qs, c)
		}
	}
	return qs
}

// TestBeat_NoProgressTwiceBlocks: a research agent that never plans runs
// twice, then the ticket is blocked with a question saying what happened;
// the third beat does not run it; a person's reply lets it run again and
// starts a new streak.
func TestBeat_NoProgressTwiceBlocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", nil)
	tk := e.ticket("demo", "Vague idea", board.Research)
	ref := tk.Ref()
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		// A comment is not progress in research: the work there is a plan.
		call(t, ctx, job, "ticket_comment", map[string]string{"kind": "status", "content": "Looking around."})
		return idle(ctx, job)
	}

	rep := e.beat()
	if rep.Runs[0].Guard != "" || e.get(ref).SubState == board.SubBlocked {
		t.Fatalf("blocked after one run: %+v", rep.Runs[0])
	}
	if r := e.runs(ref)[0]; r.Progress != board.ProgressNone {
		t.Errorf("progress of a research run without a plan = %q, want none", r.Progress)
	}
	rep = e.beat()
	if rep.Runs[0].Guard != "two runs in a row made no progress" || e.get(ref).SubState != board.SubBlocked {
		t.Fatalf("after two runs without progress: %+v, sub-state %q", rep.Runs[0], e.get(ref).SubState)
	}
	qs := e.guardQuestions(ref)
	if len(qs) != 1 {
		t.Fatalf("guard questions = %+v, want one", e.comments(ref))
	}
	for _, want := range []string{"made no progress", "Run 1 (research): ended **completed** after ", "1050 tokens, $0.02; no plan saved", "Run 2 (research)",
		"no plan saved, no move, no commit", "Together they cost $0.04 (2100 tokens)", "bonsai comment add demo#1",
		"bonsai ticket edit demo#1", "bonsai ticket move demo#1 BACKLOG"} {
		if !strings.Contains(qs[0].Content, want) {
			t.Errorf("the question lacks %q:\n%s", want, qs[0].Content)
		}
	}
	if rep := e.beat(); len(rep.Runs) != 0 || len(e.runner.calls()) != 2 {
		t.Fatalf("third beat = %+v with %d runs; want the blocked ticket left alone", rep.Runs, len(e.runner.calls()))
	}

	// A person answers: the ticket runs again, and one more run without
	// progress does not block it; a second one does.
	e.humanComment(ref, "Look at the README first.")
	e.runner.run = idle
	if rep := e.beat(); len(rep.Runs) != 1 || rep.Runs[0].Guard != "" || e.get(ref).SubState == board.SubBlocked {
		t.Fatalf("after a reply: %+v, sub-state %q", rep.Runs, e.get(ref).SubState)
	}
	if rep := e.beat(); len(rep.Runs) != 1 || rep.Runs[0].Guard == "" || len(e.guardQuestions(ref)) != 2 {
		t.Fatalf("second run after the reply: %+v", rep.Runs)
	}
}

// TestBeat_ProgressResetsTheStreak: a plan, a move, a comment (outside
// research) or a commit between two idle runs keeps the ticket going.
func TestBeat_ProgressResetsTheStreak(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		state board.State
		plan  string // the ticket's plan before the first run
		work  func(t *testing.T, ctx context.Context, job heartbeat.Job)
	}{
		{"plan", board.Research, "", func(t *testing.T, ctx context.Context, job heartbeat.Job) {
			call(t, ctx, job, "ticket_plan", map[string]string{"plan": "Read, then write."})
		}},
		{"move", board.Research, "Read, then write.", func(t *testing.T, ctx context.Context, job heartbeat.Job) {
			if r := call(t, ctx, job, "ticket_move", map[string]any{"to": "IN_PROGRESS"}); r.IsError {
				t.Errorf("move: %s", r.Text())
			}
		}},
		{"comment", board.InProgress, "", func(t *testing.T, ctx context.Context, job heartbeat.Job) {
			call(t, ctx, job, "ticket_comment", map[string]string{"kind": "status", "content": "Half done."})
		}},
		{"commit", board.InProgress, "", func(t *testing.T, ctx context.Context, job heartbeat.Job) {
			shell(t, ctx, job, "echo x > x.txt && git add x.txt && git commit -q -m x")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.project("demo", nil)
			tk := e.ticket("demo", "Work", c.state)
			if c.plan != "" {
				if _, err := e.db.UpdateTicket(context.Background(), tk.Ref(), board.TicketPatch{Plan: &c.plan}, board.Agent); err != nil {
					t.Fatal(err)
				}
			}
			n := 0
			e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
				n++
				if n == 2 {
					c.work(t, ctx, job)
				}
				return idle(ctx, job)
			}
			for i := range 3 {
				if rep := e.beat(); len(rep.Runs) != 1 || rep.Runs[0].Guard != "" {
					t.Fatalf("beat %d = %+v; want a run that does not block", i+1, rep.Runs)
				}
			}
			rs := e.runs(tk.Ref())
			if len(rs) != 3 || rs[2].Progress != board.ProgressNone || rs[1].Progress != board.ProgressMade || rs[0].Progress != board.ProgressNone {
				t.Errorf("runs = %+v; want none, made, none", rs)
			}
			if e.get(tk.Ref()).SubState == board.SubBlocked {
				t.Error("the ticket is blocked")
			}
		})
	}
}

// TestBeat_SameErrorTwiceBlocks: runs that commit but fail with the same
// error twice in a row block the ticket; different errors do not.
func TestBeat_SameErrorTwiceBlocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.InProgress)
	errs := []string{"provider: 400 Bad Request: prompt is too long", "provider: 500 overloaded", "provider: 500 overloaded"}
	n := 0
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		shell(t, ctx, job, fmt.Sprintf("echo %d > n.txt && git add n.txt && git commit -q -m %d", n, n))
		n++
		return heartbeat.Outcome{}, fmt.Errorf("%s", errs[n-1])
	}
	for i := range 2 {
		if rep := e.beat(); rep.Runs[0].Status != board.RunError || rep.Runs[0].Guard != "" {
			t.Fatalf("beat %d = %+v; want an error that does not block", i+1, rep.Runs[0])
		}
	}
	rep := e.beat()
	if rep.Runs[0].Guard != "two runs in a row failed with the same error" || e.get(tk.Ref()).SubState != board.SubBlocked {
		t.Fatalf("after the same error twice: %+v", rep.Runs[0])
	}
	qs := e.guardQuestions(tk.Ref())
	if len(qs) != 1 || !strings.Contains(qs[0].Content, "> provider: 500 overloaded") || !strings.Contains(qs[0].Content, "error: provider: 500 overloaded") ||
		!strings.Contains(qs[0].Content, "bonsai doctor") {
		t.Errorf("guard question = %+v", qs)
	}
	if strings.Contains(qs[0].Content, "prompt is too long") {
		t.Errorf("the question names the first error, which was not repeated:\n%s", qs[0].Content)
	}
}

// TestBeat_WaitingRunsDoNotCount: a run interrupted by a dead beat, stopped
// by a budget, paused by a rate limit or ended on an approval request is
// neither progress nor its absence.
func TestBeat_WaitingRunsDoNotCount(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		run  func(t *testing.T, ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error)
	}{
		{"budget", func(t *testing.T, ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
			return heartbeat.Outcome{Status: board.RunBudgetExceeded, Error: "this run's budget is used up"}, nil
		}},
		{"rate limit", func(t *testing.T, ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
			return heartbeat.Outcome{Status: board.RunError, Error: "429 rate limited", RetryAt: time.Now().Add(-time.Second)}, nil
		}},
		{"approval", func(t *testing.T, ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
			if _, a := approve(t, ctx, job, "curl https://example.com"); !a.EndRun {
				t.Errorf("approval answer = %+v, want the run ended", a)
			}
			return heartbeat.Outcome{Status: board.RunCompleted}, nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.project("demo", func(p *board.Project) { p.Agent.PermissionMode = board.ModeAsk })
			tk := e.ticket("demo", "Work", board.InProgress)
			e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) { return c.run(t, ctx, job) }
			e.beat()
			if r := e.runs(tk.Ref())[0]; r.Progress != board.ProgressNotJudged {
				t.Errorf("run %s: progress %q, want not judged", r.Status, r.Progress)
			}
			if e.get(tk.Ref()).SubState == board.SubBlocked {
				e.humanComment(tk.Ref(), "Go on.") // the approval's block, answered
			}
			e.runner.run = idle
			if rep := e.beat(); len(rep.Runs) != 1 || rep.Runs[0].Guard != "" {
				t.Fatalf("the idle run after it = %+v; want no block", rep.Runs)
			}
		})
	}

	t.Run("interrupted", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.project("demo", nil)
		tk := e.ticket("demo", "Work", board.InProgress)
		e.runner.run = idle
		e.beat()
		// A beat that died mid-run left its run running.
		if _, err := e.db.StartRun(context.Background(), board.Run{TicketID: tk.ID, Task: board.TaskImplement}); err != nil {
			t.Fatal(err)
		}
		rep := e.beat()
		if rep.Interrupted != 1 || len(rep.Runs) != 1 || rep.Runs[0].Guard == "" {
			t.Fatalf("beat after the dead one = %+v; want the interrupted run skipped and the ticket blocked", rep)
		}
		if rs := e.runs(tk.Ref()); len(rs) != 3 || rs[1].Status != board.RunInterrupted || rs[1].Progress != board.ProgressNotJudged {
			t.Errorf("runs = %+v", rs)
		}
	})
}

// TestBeat_CommentDuringTheRunIsNotBlocked: a person who comments while
// the second idle run runs is answered on the next beat, not blocked out.
func TestBeat_CommentDuringTheRunIsNotBlocked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", nil)
	tk := e.ticket("demo", "Vague", board.Research)
	e.runner.run = idle
	e.beat()
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		e.humanComment(tk.Ref(), "Here is what I meant.")
		return idle(ctx, job)
	}
	if rep := e.beat(); rep.Runs[0].Guard != "" || e.get(tk.Ref()).SubState == board.SubBlocked {
		t.Fatalf("second run = %+v; want no block after a person's comment", rep.Runs[0])
	}
	e.runner.run = idle
	if rep := e.beat(); len(rep.Runs) != 1 || rep.Runs[0].Task != board.TaskReply || rep.Runs[0].Guard != "" {
		t.Fatalf("third beat = %+v; want the reply, not blocked", rep.Runs)
	}
}
