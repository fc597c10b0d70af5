package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat/scheduletool"
	"github.com/bonsai-run/bonsai/internal/heartbeat/tickettool"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// runtimeAuthor is the author name of the comments the runtime writes.
const runtimeAuthor = "bonsai"

// transcript returns the transcript of a ticket under the sessions root.
func (h *Heartbeat) transcript(projectID, ticketID string) (string, error) {
	return session.Layout{Root: h.opts.Sessions}.Transcript(projectID, ticketID)
}

// work runs the agent on one planned ticket and records the result. Every
// failure ends up on the run record (and so on the ticket); none escapes.
func (h *Heartbeat) work(ctx context.Context, p Plan, beatDeadline time.Time, st *State) RunReport {
	rep := p.report()
	start := h.opts.Now()
	log := h.log.With("ticket", rep.Ticket, "task", p.Task)
	if h.opts.Leases != nil {
		runCtx, release, skip, err := h.holdLease(ctx, p.Ticket.Ref())
		switch {
		case err != nil:
			log.Error("take the ticket's lease", "err", err)
			rep.Error = errText(err)
			return rep
		case skip != "":
			log.Info("skip ticket", "reason", skip)
			rep.Skipped, rep.Leased = skip, true
			return rep
		}
		defer release()
		ctx = runCtx
		// Another machine may have worked the ticket between this
		// beat's pick and the lease: work it only as it was picked.
		if skip, err := h.stillAsPicked(ctx, p.Ticket); skip != "" || err != nil {
			if err != nil {
				log.Error("read the ticket again", "err", err)
				rep.Error = errText(err)
			}
			rep.Skipped = skip
			return rep
		}
	}
	if p.Class == board.ClassBacklog {
		t, err := h.takeFromBacklog(ctx, p.Ticket)
		if err != nil {
			log.Error("take from the backlog", "err", err)
			rep.Error = errText(err)
			return rep
		}
		p.Ticket = t
		log.Info("taken from the backlog")
	}
	run, err := h.opts.Store.StartRun(ctx, board.Run{TicketID: p.Ticket.ID, Task: p.Task, WorkerID: h.opts.WorkerID})
	if err != nil {
		log.Error("start run", "err", err)
		rep.Error = errText(err)
		return rep
	}
	rep.RunID = run.ID
	log = log.With("run", run.ID)
	log.Info("run started", "class", rep.Class, "model", p.Model)

	r := &runState{h: h, plan: p, run: run, log: log, started: start}
	h.progress(r.standing(start))
	out := r.execute(ctx, beatDeadline, st)
	if r.ws != nil {
		// The executor ends what it runs itself first: a sandbox's
		// command server lives as long as its executor and carries the
		// run's mark. What the agent's commands left behind (setsid,
		// double forks) then ends with the run.
		r.closeWorkspace()
		h.killRun(run.ID)
	}
	r.finish(ctx, out, st, &rep)
	rep.Duration = h.opts.Now().Sub(start)
	log.Info("run finished", "status", rep.Status, "duration", rep.Duration.String(), "error", rep.Error)
	end := r.standing(start)
	end.End = &rep
	h.progress(end)
	return rep
}

// takeFromBacklog moves a BACKLOG ticket of a project whose agents take
// their backlog to RESEARCH, as the runtime, and says so on the ticket.
func (h *Heartbeat) takeFromBacklog(ctx context.Context, t board.Ticket) (board.Ticket, error) {
	t, err := h.opts.Store.MoveTicket(ctx, t.Ref(), board.MoveRequest{To: board.Research, Actor: board.System}, runtimeAuthor)
	if err != nil {
		return t, err
	}
	_, err = h.opts.Store.AddComment(ctx, t.Ref(), board.Comment{
		AuthorType: board.System, AuthorName: runtimeAuthor, Kind: board.KindStatus,
		Content: "Taken from the backlog: nothing else in this project was waiting, and its agents take BACKLOG tickets (`bonsai project edit " + t.ProjectSlug + " --take-backlog=false` stops that). The agent researches it first.",
	})
	if err != nil {
		return t, err
	}
	return t, nil
}

// runState is one run in progress.
type runState struct {
	h    *Heartbeat
	plan Plan
	run  board.Run
	log  *slog.Logger

	ws    *workspace.Workspace
	tools *tickettool.Session
	seen  []string // unresolved human comments shown to the agent
	// decisions are the approval decisions the brief tells the agent.
	decisions []string

	limits Limits // the caps of this run's project

	// head is the ticket branch's commit before the run, headRead whether
	// it could be read: see guard.go.
	head     string
	headRead bool

	started time.Time // for Options.Progress

	closeOnce sync.Once // closes ws: after the run, before the reap

	mu    sync.Mutex
	usage board.Usage
	turns int // model responses, for Options.Progress
	// requested reports that the run ended on an approval request.
	requested bool
}

// execute prepares the run and runs the agent. It returns the outcome;
// failures before the agent ran are an outcome with status error.
func (r *runState) execute(ctx context.Context, beatDeadline time.Time, st *State) Outcome {
	job, stop := r.prepare(ctx, beatDeadline, st)
	var out Outcome
	if stop != nil {
		out = *stop
	} else {
		out = r.runAgent(ctx, job)
	}
	// The outcome goes to the run record, the ticket, the state file and
	// the log, and from the ticket into the next beat's prompt.
	out.Error, out.Summary = r.h.opts.Redact(out.Error), r.h.opts.Redact(out.Summary)
	return out
}

// failed is the outcome of a run that could not start.
func failed(what string, err error) *Outcome {
	return &Outcome{Status: board.RunError, Error: what + ": " + errText(err)}
}

// prepare resolves the workspace, records the branch, reads the thread and
// the budget, and builds the job. A non-nil outcome ends the run there.
func (r *runState) prepare(ctx context.Context, beatDeadline time.Time, st *State) (Job, *Outcome) {
	h, t := r.h, r.plan.Ticket
	ref := t.Ref()
	ws, err := h.opts.Workspaces.Prepare(ctx, r.plan.Project, t)
	var repoErr *workspace.RepoError
	switch {
	case errors.As(err, &repoErr) && ctx.Err() == nil:
		b := h.repoFailed(st, r.plan.Project, err)
		r.log.Warn("repository failed; backing off", "failures", b.Failures, "until", b.Until.UTC().Format(time.RFC3339))
		out := failed("prepare workspace", err)
		out.Error += fmt.Sprintf(" (the project's tickets wait until %s; failure %d in a row)", b.Until.UTC().Format(time.RFC3339), b.Failures)
		if b.Failures == 1 {
			r.note(ctx, board.KindStatus, repoFailedText(r.plan.Project, b, err))
		}
		return Job{}, out
	case err != nil:
		return Job{}, failed("prepare workspace", err)
	}
	h.repoWorked(st, r.plan.Project)
	r.ws = ws
	if n, ok := h.opts.Workspaces.(modelNamer); ok {
		if err := n.NameModel(r.plan.Project.Slug, r.plan.Model); err != nil {
			r.log.Warn("name the model on the agent's commits", "err", err)
		}
	}
	if m, ok := ws.Exec.(marker); ok {
		m.Mark(runMark(r.run.ID))
	}
	if t.Branch != ws.Branch {
		branch := ws.Branch
		if _, err := h.opts.Store.UpdateTicket(ctx, ref, board.TicketPatch{Branch: &branch}, board.System); err != nil {
			return Job{}, failed("record branch", err)
		}
	}
	if ws.Recreated {
		r.note(ctx, board.KindNote, fmt.Sprintf("The branch `%s` no longer existed; it was started again from `%s`.", ws.Branch, ws.Base))
	}
	if m := ws.Moved; m != nil {
		r.log.Info("worktree moved to the pushed branch", "branch", ws.Branch, "from", m.From, "to", m.To, "backup", m.Backup, "leftovers", m.Leftovers)
		if m.Lost() {
			r.note(ctx, board.KindNote, movedText(ws.Branch, m, h.opts.WorkerID))
		}
	}
	comments, err := h.opts.Store.Comments(ctx, ref)
	if err != nil {
		return Job{}, failed("read comments", err)
	}
	for _, c := range comments {
		if c.AuthorType == board.Human && !c.Resolved {
			r.seen = append(r.seen, c.ID)
		}
	}
	approvals, err := h.opts.Store.Approvals(ctx, ref)
	if err != nil {
		return Job{}, failed("read approvals", err)
	}
	decisions := untold(approvals)
	for _, a := range decisions {
		r.decisions = append(r.decisions, a.ID)
	}
	r.limits = h.opts.Limits.Of(r.plan.Project.Agent)
	sp, err := h.spending(ctx, r.limits, r.plan.Project, ref)
	if err != nil {
		return Job{}, failed("read budget", err)
	}
	budget, over := budgetOf(r.limits, sp)
	if len(over) > 0 {
		return Job{}, &Outcome{Status: board.RunBudgetExceeded, Error: over[0].text()}
	}
	transcript, err := h.transcript(t.ProjectID, t.ID)
	if err != nil {
		return Job{}, failed("create session directory", err)
	}
	if err := os.MkdirAll(filepath.Dir(transcript), 0o700); err != nil {
		return Job{}, failed("create session directory", err)
	}
	mirror, err := r.storedCopy(ctx, transcript)
	if err != nil {
		return Job{}, failed("prepare the transcript", err)
	}
	r.readHead(ctx)
	r.tools = tickettool.New(tickettool.Config{
		Board: h.opts.Store, Ref: ref, Author: runtimeAuthor, Exec: ws.Exec, Base: ws.Base,
		Verify: r.plan.Project.Agent.Verify, RunUsage: r.runUsage, Update: r.keepCurrent,
	})
	tools := r.tools.Tools()
	if r.plan.Project.Agent.ScheduleTools {
		tools = append(tools, scheduletool.Tools(h.opts.Store, r.plan.Project.Slug, h.opts.Now)...)
	}
	deadline := h.opts.Now().Add(h.opts.MaxRun)
	if beatDeadline.Before(deadline) {
		deadline = beatDeadline
	}
	return Job{
		Brief: Brief{Task: r.plan.Task, Project: r.plan.Project, Ticket: t, Comments: comments,
			Unseen: slices.Clone(r.seen), Decisions: decisions, Budget: budget, Deadline: deadline, Now: h.opts.Now()},
		Workspace: ws, Model: r.plan.Model, SessionFile: transcript, Mirror: mirror, Skills: h.opts.Skills,
		Tools: tools, OnUsage: r.setUsage, Policy: h.policyOf(r.plan.Project), ReadOnly: readOnlyRun(r.plan.Project, t),
		Approve: r.approve, LiveStore: h.liveStore(t.ID),
	}, nil
}

// liveStore is where a ticket's live file goes besides this machine's
// sessions directory: the store, on a board several machines share, so
// that their `bonsai serve` shows the message being streamed; nil on one
// machine's board, whose serve reads the file.
func (h *Heartbeat) liveStore(ticketID string) session.LiveStore {
	st := h.opts.Transcripts
	if !h.opts.SharedBoard || st == nil {
		return nil
	}
	return func(ctx context.Context, data []byte, fresh bool) error {
		return st.WriteLive(ctx, ticketID, data, fresh)
	}
}

// policyOf is a project's command policy: its mode and patterns, then
// config.json's, with the data and home directories.
func (h *Heartbeat) policyOf(p board.Project) policy.Config {
	c := h.opts.Policy
	c.Mode = policy.Mode(p.Agent.PermissionMode.Commands())
	c.Allow = append(slices.Clone(p.Agent.Allow), h.opts.Policy.Allow...)
	c.Ask = append(slices.Clone(p.Agent.Ask), h.opts.Policy.Ask...)
	c.Workspace = ""
	if h.opts.ResolveProgram != nil {
		c.Resolve = h.opts.ResolveProgram(p.Agent.Sandbox)
	}
	return c
}

// readOnlyRun reports whether a run on ticket t promises no writes to the
// worktree (Job.ReadOnly): every run of a read-only project, and a run on
// a ticket in RESEARCH where a person approves each plan, since nothing
// may change before they approved it.
func readOnlyRun(p board.Project, t board.Ticket) bool {
	m := p.Agent.PermissionMode
	return m == board.ModeReadOnly || (t.State == board.Research && m.PersonApprovesPlans())
}

// runAgent runs the job until it ends or its deadline passes, and turns a
// runner error into the run's status.
func (r *runState) runAgent(ctx context.Context, job Job) Outcome {
	deadline := job.Deadline
	stopCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	runCtx, cancel := context.WithDeadline(stopCtx, deadline)
	defer cancel()
	job.Steering = &Steering{}
	watchCtx, endWatch := context.WithCancel(runCtx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		r.watch(watchCtx, stop, job.Steering)
	}()
	out, err := r.h.opts.Runner.RunAgent(runCtx, job)
	endWatch()
	<-watched
	if s, ok := stopped(stopCtx); ok {
		out.Status, out.Error = board.RunStopped, stoppedText(s, r.h.opts.Now().Sub(r.run.StartedAt))
		out.RetryAt = time.Time{}
		return out
	}
	switch {
	case err != nil && ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		out.Status, out.Error = board.RunInterrupted, "the heartbeat was stopped during the run"
	case err != nil && errors.Is(runCtx.Err(), context.DeadlineExceeded):
		out.Status, out.Error = board.RunTimeout, fmt.Sprintf("the run reached its deadline (%s)", deadline.Sub(r.run.StartedAt).Round(time.Second))
	case err != nil:
		out.Status, out.Error = board.RunError, errText(err)
	case out.Status == board.RunInterrupted && errors.Is(runCtx.Err(), context.DeadlineExceeded):
		// The beat's deadline, which is the run's, ended the loop: the
		// runner saw its context canceled rather than its own deadline.
		out.Status, out.Error = board.RunTimeout, fmt.Sprintf("the run reached its deadline (%s)", deadline.Sub(r.run.StartedAt).Round(time.Second))
	case out.Status == "" || out.Status == board.RunRunning:
		out.Status = board.RunCompleted
	}
	return out
}

func (r *runState) setUsage(u board.Usage) {
	r.mu.Lock()
	// The runner reports a response's usage when its message ends and
	// again when its turn ends; only a change is a new response.
	changed := u != r.usage
	r.usage = u
	if changed {
		r.turns++
	}
	r.mu.Unlock()
	if changed {
		r.h.progress(r.standing(r.started))
	}
}

func (r *runState) runUsage() board.Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.usage
}

// note posts a comment as the runtime; a failure is logged, not fatal.
func (r *runState) note(ctx context.Context, kind board.CommentKind, content string) {
	_, err := r.h.opts.Store.AddComment(ctx, r.plan.Ticket.Ref(), board.Comment{
		AuthorType: board.System, AuthorName: runtimeAuthor, Kind: kind, Content: content,
	})
	if err != nil {
		r.log.Error("post runtime comment", "err", err)
	}
}

// closeWorkspace closes the run's workspace and its executor, once. What
// follows the run (the push, the review, the refusals report) reads the
// project's clone and the executor's records, never runs a command in it.
func (r *runState) closeWorkspace() {
	r.closeOnce.Do(func() {
		if err := r.ws.Close(); err != nil {
			r.log.Warn("close the workspace", "err", err)
		}
	})
}
