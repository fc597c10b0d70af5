package heartbeat

import (
	"context"
	"fmt"
	"log/slog"
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

// guardStore is what the guard reads of the ticket: its thread and its
// runs, newest first.
type guardStore interface {
	Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error)
	Runs(ctx context.Context, ref board.Ref) ([]board.Run, error)
}

// heads reads a branch's head in a project's clone (Workspaces.Head).
type heads interface {
	Head(ctx context.Context, p board.Project, branch string) (string, error)
}

// progressGuard judges one run's progress and blocks its ticket after the
// second run in a row without progress, or failing the same way.
type progressGuard struct {
	store guardStore
	heads heads
	notes ticketNotes
	plan  Plan
	log   *slog.Logger

	// branch is the ticket branch, head its commit before the run and
	// headRead whether it could be read (readHead).
	branch   string
	head     string
	headRead bool
}

// judged reports whether a run counts for the guard: it ended on its own
// (completed, timeout or error) after the agent got to run (worked), and
// was not a rate limit or rejected key that paused its provider.
// Interrupted runs, budget stops, approval requests and questions wait
// for something else and are neither progress nor its absence.
func judged(out Outcome, worked bool) bool {
	if !worked || !out.RetryAt.IsZero() {
		return false
	}
	switch out.Status {
	case board.RunCompleted, board.RunTimeout, board.RunError:
		return true
	}
	return false
}

// verdict is the verdict on a finished run. A plan, a move or a commit
// is progress; so is a comment, except in a research run, whose work is a
// plan: a research run that ends without one is researched again on the
// next beat.
func (g *progressGuard) verdict(ctx context.Context, out Outcome, worked bool, e tickettool.Effects) board.RunProgress {
	if !judged(out, worked) {
		return board.ProgressNotJudged
	}
	if e.Planned || e.MovedTo != "" || (len(e.Comments) > 0 && g.plan.Task != board.TaskResearch) {
		return board.ProgressMade
	}
	switch committed, ok := g.committed(ctx); {
	case !ok:
		return board.ProgressNotJudged
	case committed:
		return board.ProgressMade
	}
	return board.ProgressNone
}

// committed reports whether the ticket's branch moved during the run;
// ok is false when its head could not be read before or after.
func (g *progressGuard) committed(ctx context.Context) (moved, ok bool) {
	if !g.headRead {
		return false, false
	}
	head, err := g.heads.Head(ctx, g.plan.Project, g.branch)
	if err != nil {
		g.log.Warn("read the branch's head after the run", "err", err)
		return false, false
	}
	return head != g.head, true
}

// readHead records the head of the ticket's branch before the run:
// known, when the workspace says where it left the branch
// (workspace.Workspace.Head), else read from the clone.
func (g *progressGuard) readHead(ctx context.Context, branch, known string) {
	g.branch = branch
	if known != "" {
		g.head, g.headRead = known, true
		return
	}
	head, err := g.heads.Head(ctx, g.plan.Project, branch)
	if err != nil {
		g.log.Warn("read the branch's head before the run", "err", err)
		return
	}
	g.head, g.headRead = head, true
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

// reason says why the finished run `run` blocks its ticket, or ""
// when it does not: the previous judged run of the current streak made no
// progress either, or failed with the same error.
func (g *progressGuard) reason(ctx context.Context, run board.Run) (string, board.Run) {
	if run.Progress == board.ProgressNotJudged || (run.Progress == board.ProgressMade && run.Status != board.RunError) {
		return "", board.Run{}
	}
	ref := g.plan.Ticket.Ref()
	// The thread again, not the one the run started with: a person may
	// have commented while it ran.
	comments, err := g.store.Comments(ctx, ref)
	if err != nil {
		g.log.Error("read the ticket's comments for the no-progress guard", "err", err)
		return "", board.Run{}
	}
	since := streakStart(comments)
	if run.StartedAt.Before(since) {
		return "", board.Run{}
	}
	runs, err := g.store.Runs(ctx, ref)
	if err != nil {
		g.log.Error("read the ticket's runs for the no-progress guard", "err", err)
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

// block blocks the ticket when the finished run and the one before it
// made no progress or failed the same way: an agent-side question that
// says what the two runs did, what they cost and what a person can do.
// It reports why it blocked, or "".
func (g *progressGuard) block(ctx context.Context, run board.Run) string {
	why, prev := g.reason(ctx, run)
	if why == "" {
		return ""
	}
	if !g.notes.ask(ctx, guardText(why, g.plan, prev, run), "block the ticket after two runs without progress") {
		return ""
	}
	g.log.Warn("ticket blocked", "why", why, "previous run", prev.ID)
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
