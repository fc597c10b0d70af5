package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/heartbeat/tickettool"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// runtimeAuthor is the author name of the comments the runtime writes.
const runtimeAuthor = "bonsai"

// work runs the agent on one planned ticket and records the result. Every
// failure ends up on the run record (and so on the ticket); none escapes.
func (h *Heartbeat) work(ctx context.Context, p Plan, beatDeadline time.Time, l *ledger) RunReport {
	rep := p.report()
	start := h.opts.Now()
	log := h.log.With("ticket", rep.Ticket, "task", p.Task)
	if h.leases != nil {
		runCtx, release, skip, err := h.leases.hold(ctx, p.Ticket.Ref())
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
		if skip, err := h.leases.stillAsPicked(ctx, p.Ticket); skip != "" || err != nil {
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
	run, err := h.opts.Store.StartRun(ctx, board.Run{TicketID: p.Ticket.ID, Task: p.Task, WorkerID: h.opts.WorkerID,
		Model: p.Model, Engine: p.Project.Agent.Engine.String()})
	if err != nil {
		log.Error("start run", "err", err)
		rep.Error = errText(err)
		return rep
	}
	rep.RunID = run.ID
	log = log.With("run", run.ID)
	log.Info("run started", "class", rep.Class, "model", p.Model)

	r := h.newRun(p, run, log, l, start)
	r.meter.report(nil)
	out := r.execute(ctx, beatDeadline)
	if r.ws != nil {
		// The executor ends what it runs itself first: a sandbox's
		// command server lives as long as its executor and carries the
		// run's mark. What the agent's commands left behind (setsid,
		// double forks) then ends with the run: with the sandbox's PID
		// namespace, or found by its mark in the process table.
		contained := executor.ContainsProcesses(r.ws.Exec)
		r.closeWorkspace()
		if !contained {
			h.reaper.kill(run.ID)
		}
	}
	r.finish(ctx, out, &rep)
	if r.releaseDay != nil {
		r.releaseDay()
	}
	rep.Duration = h.opts.Now().Sub(start)
	log.Info("run finished", "status", rep.Status, "duration", rep.Duration.String(), "error", rep.Error)
	r.meter.report(&rep)
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

// newRun returns the state of run, just started on plan p, with the
// concerns that need nothing of its workspace.
func (h *Heartbeat) newRun(p Plan, run board.Run, log *slog.Logger, l *ledger, start time.Time) *runState {
	notes := ticketNotes{store: h.opts.Store, ref: p.Ticket.Ref(), log: log}
	return &runState{
		h: h, plan: p, run: run, log: log, ledger: l, notes: notes,
		meter: &meter{send: h.opts.Progress, base: Progress{Ticket: p.Ticket.Ref().String(), Task: p.Task, Model: p.Model, RunID: run.ID, Started: start}},
		seen:  &seenComments{},
		guard: &progressGuard{store: h.opts.Store, heads: h.opts.Workspaces, notes: notes, plan: p, log: log},
	}
}

// runState is one run in progress: what it is for and the concerns it
// hands its work to (approvals, the progress guard, the meter, the
// comments seen), and what preparing it found.
type runState struct {
	h      *Heartbeat
	plan   Plan
	run    board.Run
	log    *slog.Logger
	ledger *ledger // the beat's state

	notes ticketNotes
	meter *meter
	seen  *seenComments
	guard *progressGuard
	// approver, set once the workspace is ready, answers held commands.
	approver *approver

	ws    *workspace.Workspace
	tools *tickettool.Session
	// decisions are the approval decisions the brief tells the agent.
	decisions []string
	limits    Limits // the caps of this run's project
	// releaseDay, when set, gives back the run's share of its project's
	// day (dayshare.go) once its spend is recorded.
	releaseDay func()

	closeOnce sync.Once // closes ws: after the run, before the reap
}

// execute prepares the run and runs the agent. It returns the outcome;
// failures before the agent ran are an outcome with status error.
func (r *runState) execute(ctx context.Context, beatDeadline time.Time) Outcome {
	job, stop := r.prepare(ctx, beatDeadline)
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

// runAgent runs the job until it ends or its deadline passes, and turns a
// runner error into the run's status.
func (r *runState) runAgent(ctx context.Context, job Job) Outcome {
	deadline, begun := job.Deadline, time.Now()
	stopCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	runCtx, cancel := context.WithDeadline(stopCtx, deadline)
	defer cancel()
	job.Steering = &Steering{}
	control := runControl{store: r.h.opts.Store, runID: r.run.ID, ref: r.plan.Ticket.Ref(), seen: r.seen, log: r.log}
	unwatch := r.h.control.watch(runCtx, control, stop, job.Steering)
	out, err := r.h.opts.Runner.RunAgent(runCtx, job)
	unwatch()
	if s, ok := stopped(stopCtx); ok {
		out.Status, out.Error = board.RunStopped, stoppedText(s, r.h.opts.Now().Sub(r.run.StartedAt))
		out.RetryAt = time.Time{}
		return out
	}
	timeout := fmt.Sprintf("the run reached its deadline (%s)", time.Since(begun).Round(time.Second))
	switch {
	case err != nil && ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		out.Status, out.Error = board.RunInterrupted, "the heartbeat was stopped during the run"
	case err != nil && errors.Is(runCtx.Err(), context.DeadlineExceeded):
		out.Status, out.Error = board.RunTimeout, timeout
	case err != nil:
		out.Status, out.Error = board.RunError, errText(err)
	case out.Status == board.RunInterrupted && errors.Is(runCtx.Err(), context.DeadlineExceeded):
		// The beat's deadline, which is the run's, ended the loop: the
		// runner saw its context canceled rather than its own deadline.
		out.Status, out.Error = board.RunTimeout, timeout
	case out.Status == "" || out.Status == board.RunRunning:
		out.Status = board.RunCompleted
	}
	return out
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
