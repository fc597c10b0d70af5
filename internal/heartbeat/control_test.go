package heartbeat_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestBeat_CommentSteersTheRunningAgent posts a person's comment while
// the agent works: the runner receives it through the job's Steering,
// and it counts as seen (resolved) when the run ends.
func TestBeat_CommentSteersTheRunningAgent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.ControlPoll = 50 * time.Millisecond
	e.project("demo", nil)
	tk := e.ticket("demo", "Steer me", board.InProgress)
	got := make(chan []board.Comment, 1)
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		job.Steering.Attach(func(cs []board.Comment) { got <- cs })
		defer job.Steering.Attach(nil)
		e.humanComment(tk.Ref(), "use the v2 API instead")
		select {
		case cs := <-got:
			if len(cs) != 1 || cs[0].Content != "use the v2 API instead" {
				t.Errorf("steered with %+v, want the one new comment", cs)
			}
		case <-ctx.Done():
			t.Error("the comment never reached the runner")
		}
		return heartbeat.Outcome{Status: board.RunCompleted, Usage: board.Usage{OutputTokens: 10}}, nil
	}
	e.beat()
	for _, c := range e.comments(tk.Ref()) {
		if c.AuthorType == board.Human && !c.Resolved {
			t.Errorf("comment %q is not resolved after the agent saw it", c.Content)
		}
	}
}

// TestBeat_OneTicket runs exactly the ticket asked for, not the project's
// pick, and refuses one the board's rules keep agents away from.
func TestBeat_OneTicket(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", nil)
	e.ticket("demo", "The pick", board.InProgress)
	other := e.ticket("demo", "Asked for", board.Research)
	done := e.ticket("demo", "Finished", board.InProgress)
	if _, err := e.db.MoveTicket(context.Background(), done.Ref(), board.MoveRequest{To: board.Verification, Actor: board.Agent}, "bot"); err != nil {
		t.Fatal(err)
	}
	e.opts.Ticket = other.Ref()
	rep := e.beat()
	if len(rep.Runs) != 1 || rep.Runs[0].Ticket != other.Ref().String() || rep.Runs[0].Task != board.TaskResearch {
		t.Fatalf("runs = %+v, want one research run of %s", rep.Runs, other.Ref())
	}
	e.opts.Ticket = done.Ref()
	h, err := heartbeat.New(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Beat(context.Background())
	var nr *heartbeat.NotRunnableError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "VERIFICATION") {
		t.Errorf("Beat for a ticket in review = %v, want a NotRunnableError naming VERIFICATION", err)
	}
}
