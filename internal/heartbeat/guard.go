package heartbeat

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat/tickettool"
)

// The no-progress guard (docs/heartbeat.md, "No endless loops"): a ticket
// whose runs make no progress twice in a row, or fail with the same error
// twice in a row, is blocked with a question to a person instead of being
// run, and paid for, on every beat.
//
// The verdict of each run is kept on its run record (board.Run.Progress),
// written in FinishRun's transaction: a crash cannot lose it, and any
// process reads the same streak from the runs table.

// judged reports whether a run counts for the guard: it ended on its own
// (completed, timeout or error) after the agent got to run, and was not a
// rate limit or rejected key that paused its provider. Interrupted runs,
// budget stops, approval requests and questions wait for something else
// and are neither progress nor its absence.
func (r *runState) judged(out Outcome) bool {
	if r.tools == nil || !out.RetryAt.IsZero() {
		return false
	}
	switch out.Status {
	case board.RunCompleted, board.RunTimeout, board.RunError:
		return true
	}
	return false
}

// progressOf is the verdict on a finished run. A plan, a move or a commit
// is progress; so is a comment, except in a research run, whose work is a
// plan: a research run that ends without one is researched again on the
// next beat.
func (r *runState) progressOf(ctx context.Context, out Outcome, e tickettool.Effects) board.RunProgress {
	if !r.judged(out) {
		return board.ProgressNotJudged
	}
	if e.Planned || e.MovedTo != "" || (len(e.Comments) > 0 && r.plan.Task != board.TaskResearch) {
		return board.ProgressMade
	}
	switch committed, ok := r.committed(ctx); {
	case !ok:
		return board.ProgressNotJudged
	case committed:
		return board.ProgressMade
	}
	return board.ProgressNone
}

// committed reports whether the ticket's branch moved during the run;
// ok is false when its head could not be read before or after.
func (r *runState) committed(ctx context.Context) (moved, ok bool) {
	if r.ws == nil || !r.headRead {
		return false, false
	}
	head, err := r.h.opts.Workspaces.Head(ctx, r.plan.Project, r.ws.Branch)
	if err != nil {
		r.log.Warn("read the branch's head after the run", "err", err)
		return false, false
	}
	return head != r.head, true
}

// readHead records the branch's head before the run.
func (r *runState) readHead(ctx context.Context) {
	head, err := r.h.opts.Workspaces.Head(ctx, r.plan.Project, r.ws.Branch)
	if err != nil {
		r.log.Warn("read the branch's head before the run", "err", err)
		return
	}
	r.head, r.headRead = head, true
}

// streakStart returns when the ticket's current streak began: the newest
// comment by a person (a reply, an approval decision) or of a block (a
// question or an approval request, which a person had to act on). Runs
// started before it do not count.
func streakStart(comments []board.Comment) time.Time {
	var since time.Time
	for _, c := range comments {
		block := c.AuthorType == board.Agent && (c.Kind == board.KindQuestion || c.Kind == board.KindPermission)
		if (c.AuthorType == board.Human || block) && c.CreatedAt.After(since) {
			since = c.CreatedAt
		}
	}
	return since
}

// guardReason says why the finished run `run` blocks its ticket, or ""
// when it does not: the previous judged run of the current streak made no
// progress either, or failed with the same error.
func (r *runState) guardReason(ctx context.Context, run board.Run) (string, board.Run) {
	if run.Progress == board.ProgressNotJudged || (run.Progress == board.ProgressMade && run.Status != board.RunError) {
		return "", board.Run{}
	}
	ref := r.plan.Ticket.Ref()
	// The thread again, not the one the run started with: a person may
	// have commented while it ran.
	comments, err := r.h.opts.Store.Comments(ctx, ref)
	if err != nil {
		r.log.Error("read the ticket's comments for the no-progress guard", "err", err)
		return "", board.Run{}
	}
	since := streakStart(comments)
	if run.StartedAt.Before(since) {
		return "", board.Run{}
	}
	runs, err := r.h.opts.Store.Runs(ctx, ref)
	if err != nil {
		r.log.Error("read the ticket's runs for the no-progress guard", "err", err)
		return "", board.Run{}
	}
	for _, prev := range runs { // newest first
		if prev.ID == run.ID || prev.Status == board.RunRunning {
			continue
		}
		if prev.StartedAt.Before(since) {
			break
		}
		if prev.Progress == board.ProgressNotJudged {
			continue
		}
		switch {
		case run.Status == board.RunError && prev.Status == board.RunError && run.Error == prev.Error:
			return "same error", prev
		case run.Progress == board.ProgressNone && prev.Progress == board.ProgressNone:
			return "no progress", prev
		}
		return "", board.Run{}
	}
	return "", board.Run{}
}

// guard blocks the ticket when the finished run and the one before it made
// no progress or failed the same way: an agent-side question (the same
// block as ticket_ask's, so a notification keyed on questions fires) that
// says what the two runs did, what they cost and what a person can do. It
// reports why it blocked, or "".
func (r *runState) guard(ctx context.Context, run board.Run) string {
	why, prev := r.guardReason(ctx, run)
	if why == "" {
		return ""
	}
	_, err := r.h.opts.Store.AddComment(ctx, r.plan.Ticket.Ref(), board.Comment{
		AuthorType: board.Agent, AuthorName: runtimeAuthor, Kind: board.KindQuestion,
		Content: guardText(why, r.plan, prev, run),
	})
	if err != nil {
		r.log.Error("block the ticket after two runs without progress", "err", err)
		return ""
	}
	r.log.Warn("ticket blocked", "why", why, "previous run", prev.ID)
	if why == "same error" {
		return "two runs in a row failed with the same error"
	}
	return "two runs in a row made no progress"
}

// guardText is the question that blocks a ticket after two runs.
func guardText(why string, p Plan, prev, run board.Run) string {
	ref := p.Ticket.Ref().String()
	var b strings.Builder
	if why == "same error" {
		b.WriteString("I stopped: my last two runs failed with the same error, so I will not run again until a person looks.\n\n")
		fmt.Fprintf(&b, "> %s\n\n", strings.ReplaceAll(strings.TrimSpace(run.Error), "\n", "\n> "))
	} else {
		b.WriteString("I stopped: my last two runs made no progress, so I will not run again until a person looks.\n\n")
	}
	for i, x := range []board.Run{prev, run} {
		fmt.Fprintf(&b, "- Run %d (%s): %s", i+1, x.Task, runLine(x))
		if x.Progress == board.ProgressNone {
			fmt.Fprintf(&b, "; %s", missing(x.Task))
		}
		b.WriteString(".\n")
	}
	fmt.Fprintf(&b, "\nTogether they cost %s (%d tokens).\n\n", usd(prev.CostUSD+run.CostUSD), prev.Tokens()+run.Tokens())
	b.WriteString("What you can do:\n\n")
	if why == "same error" {
		b.WriteString("- fix what the error names (`bonsai status` and `bonsai doctor` check the model, its key and the sandbox), then reply here to let me try again;\n")
	} else {
		b.WriteString("- answer here with what I am missing (a reply unblocks the ticket and I run again, told what you said);\n")
	}
	fmt.Fprintf(&b, "- make the ticket clearer (`bonsai ticket edit %s --description TEXT` or `--criterion TEXT`), then reply here;\n", ref)
	fmt.Fprintf(&b, "- retry as it is: `bonsai comment add %s 'try again'`;\n", ref)
	fmt.Fprintf(&b, "- or park it: `bonsai ticket move %s BACKLOG`.", ref)
	return b.String()
}

// runLine says how a run ended: status, duration, error and cost.
func runLine(x board.Run) string {
	d := x.Duration().Round(time.Second)
	if d == 0 {
		d = x.Duration().Round(time.Millisecond)
	}
	s := fmt.Sprintf("ended **%s** after %s, %d tokens, %s", x.Status, d, x.Tokens(), usd(x.CostUSD))
	if x.Error != "" {
		e := strings.TrimSpace(x.Error)
		if len(e) > 300 {
			e = e[:300] + "…"
		}
		s += ", error: " + strings.ReplaceAll(e, "\n", " ")
	}
	return s
}

// missing says what a run without progress did not do.
func missing(task board.TaskKind) string {
	if task == board.TaskResearch {
		return "no plan saved, no move, no commit"
	}
	return "no plan, no move, no comment, no commit"
}
