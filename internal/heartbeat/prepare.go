package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/heartbeat/scheduletool"
	"github.com/bonsai-run/bonsai/internal/heartbeat/tickettool"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// modelNamer is implemented by workspaces that name the run's model on
// the agent's commits (workspace.Provider's commit-msg hook).
type modelNamer interface {
	NameModel(slug string, n int, model string) error
}

// failed is the outcome of a run that could not start.
func failed(what string, err error) *Outcome {
	return &Outcome{Status: board.RunError, Error: what + ": " + errText(err)}
}

// prepare resolves the workspace, records the branch, reads the thread and
// the budget, and builds the job. A non-nil outcome ends the run there.
func (r *runState) prepare(ctx context.Context, beatDeadline time.Time) (Job, *Outcome) {
	if stop := r.openWorkspace(ctx); stop != nil {
		return Job{}, stop
	}
	comments, decisions, stop := r.readThread(ctx)
	if stop != nil {
		return Job{}, stop
	}
	budget, stop := r.readBudget(ctx)
	if stop != nil {
		return Job{}, stop
	}
	transcript, mirror, stop := r.prepareTranscript(ctx)
	if stop != nil {
		return Job{}, stop
	}
	r.guard.readHead(ctx, r.ws.Branch, r.ws.Head)
	h, t := r.h, r.plan.Ticket
	policy := h.policyOf(r.plan.Project)
	r.approver = &approver{store: h.opts.Store, ref: t.Ref(), ticketID: t.ID, runID: r.run.ID, policy: policy, redact: h.opts.Redact, log: r.log}
	r.approver.policy.Workspace = r.ws.Root
	keeper := currentKeeper{ws: r.ws, project: r.plan.Project, store: h.opts.Store, notes: r.notes, log: r.log}
	r.tools = tickettool.New(tickettool.Config{
		Board: h.opts.Store, Ref: t.Ref(), Author: runtimeAuthor, Exec: r.ws.Exec, Base: r.ws.Base,
		Verify: r.plan.Project.Agent.Verify, RunUsage: r.meter.used, Update: keeper.update,
		Task: r.plan.Task, SplitState: splitState(r.plan.Project), Attachments: h.opts.Attachments,
	})
	tools := r.tools.Tools()
	if r.plan.Project.Agent.ScheduleTools {
		tools = append(tools, scheduletool.Tools(h.opts.Store, r.plan.Project.Slug, h.opts.Now)...)
	}
	deadline := time.Now().Add(h.opts.MaxRun) // the real clock, as the beat's
	if beatDeadline.Before(deadline) {
		deadline = beatDeadline
	}
	return Job{
		Brief: Brief{Task: r.plan.Task, Project: r.plan.Project, Ticket: t, Comments: comments,
			Unseen: r.seen.list(), Decisions: decisions, Budget: budget, Deadline: deadline, Now: h.opts.Now(),
			Attachments: readAttachments(ctx, h.opts.Store, t.Ref(), r.log)},
		Workspace: r.ws, Model: r.plan.Model, SessionFile: transcript, Mirror: mirror, Skills: h.opts.Skills,
		Tools: tools, OnUsage: r.meter.setUsage, Policy: policy, ReadOnly: readOnlyRun(r.plan.Project, t),
		Approve: r.approver.approve, LiveStore: h.liveStore(t.ID),
	}, nil
}

// openWorkspace prepares the ticket's worktree (r.ws), backing the
// project off when its repository fails, records the ticket's branch and
// tells the ticket when the branch was started again or moved.
func (r *runState) openWorkspace(ctx context.Context) *Outcome {
	h, t := r.h, r.plan.Ticket
	// The executor is marked as it opens, before its first command
	// (marking it later would start its sandbox again).
	ws, err := h.opts.Workspaces.Prepare(executor.WithMark(ctx, runMark(r.run.ID)), r.plan.Project, t)
	var repoErr *workspace.RepoError
	switch {
	case errors.As(err, &repoErr) && ctx.Err() == nil:
		b := r.ledger.repoFailed(r.plan.Project, err)
		r.log.Warn("repository failed; backing off", "failures", b.Failures, "until", b.Until.UTC().Format(time.RFC3339))
		out := failed("prepare workspace", err)
		out.Error += fmt.Sprintf(" (the project's tickets wait until %s; failure %d in a row)", b.Until.UTC().Format(time.RFC3339), b.Failures)
		if b.Failures == 1 {
			r.notes.note(ctx, board.KindStatus, repoFailedText(r.plan.Project, b, err))
		}
		return out
	case err != nil:
		return failed("prepare workspace", err)
	}
	r.ledger.repoWorked(r.plan.Project)
	r.ws = ws
	if n, ok := h.opts.Workspaces.(modelNamer); ok {
		if err := n.NameModel(r.plan.Project.Slug, r.plan.Ticket.Number, r.plan.Model); err != nil {
			r.log.Warn("name the model on the agent's commits", "err", err)
		}
	}
	if m, ok := ws.Exec.(marker); ok {
		m.Mark(runMark(r.run.ID))
	}
	if t.Branch != ws.Branch {
		branch := ws.Branch
		if _, err := h.opts.Store.UpdateTicket(ctx, t.Ref(), board.TicketPatch{Branch: &branch}, board.System); err != nil {
			return failed("record branch", err)
		}
	}
	if ws.Recreated {
		r.notes.note(ctx, board.KindNote, fmt.Sprintf("The branch `%s` no longer existed; it was started again from `%s`.", ws.Branch, ws.Base))
	}
	if m := ws.Moved; m != nil {
		r.log.Info("worktree moved to the pushed branch", "branch", ws.Branch, "from", m.From, "to", m.To, "backup", m.Backup, "leftovers", m.Leftovers)
		if m.Lost() {
			r.notes.note(ctx, board.KindNote, movedText(ws.Branch, m, h.opts.WorkerID))
		}
	}
	return nil
}

// readThread reads the ticket's thread, recording the people's comments
// the agent sees, and the decisions on its approvals the agent was not
// told yet.
func (r *runState) readThread(ctx context.Context) ([]board.Comment, []board.Approval, *Outcome) {
	ref := r.plan.Ticket.Ref()
	comments, err := r.h.opts.Store.Comments(ctx, ref)
	if err != nil {
		return nil, nil, failed("read comments", err)
	}
	for _, c := range comments {
		if c.AuthorType == board.Human && !c.Resolved {
			r.seen.add(c.ID)
		}
	}
	approvals, err := r.h.opts.Store.Approvals(ctx, ref)
	if err != nil {
		return nil, nil, failed("read approvals", err)
	}
	decisions := untold(approvals)
	for _, a := range decisions {
		r.decisions = append(r.decisions, a.ID)
	}
	return comments, decisions, nil
}

// readBudget reads the project's caps and what the ticket and project
// spent, and returns the run's budget; a cap already reached ends the run
// as budget_exceeded.
func (r *runState) readBudget(ctx context.Context) (Budget, *Outcome) {
	h := r.h
	r.limits = h.opts.Limits.Of(r.plan.Project.Agent)
	sp, err := spending(ctx, h.opts.Store, h.opts.Now(), r.limits, r.plan.Project, r.plan.Ticket.Ref())
	if err != nil {
		return Budget{}, failed("read budget", err)
	}
	budget, over := budgetOf(r.limits, sp)
	if len(over) > 0 {
		return Budget{}, &Outcome{Status: board.RunBudgetExceeded, Error: over[0].text()}
	}
	if n := r.plan.Project.Agent.Agents(); n > 1 {
		var ok bool
		if budget, r.releaseDay, ok = r.ledger.days.take(r.plan.Project.ID, n, r.limits, sp.day, budget); !ok {
			return Budget{}, &Outcome{Status: board.RunBudgetExceeded, Error: dayHeldText}
		}
	}
	return budget, nil
}

// prepareTranscript creates the ticket's session directory and prepares
// its transcript file from the store (transcriptCopy).
func (r *runState) prepareTranscript(ctx context.Context) (string, session.Mirror, *Outcome) {
	h, t := r.h, r.plan.Ticket
	path, err := session.Layout{Root: h.opts.Sessions}.Transcript(t.ProjectID, t.ID)
	if err != nil {
		return "", nil, failed("create session directory", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", nil, failed("create session directory", err)
	}
	tc := transcriptCopy{store: h.opts.Transcripts, shared: h.opts.SharedBoard, timeout: h.opts.LeaseTTL}
	mirror, kept, err := tc.prepare(ctx, t.ID, path)
	if err != nil {
		return "", nil, failed("prepare the transcript", err)
	}
	if kept != "" {
		r.log.Warn("the local transcript held lines the store lacks; kept it aside, resuming from the store", "kept", kept)
		r.notes.note(ctx, board.KindNote, keptText(h.opts.WorkerID, kept))
	}
	return path, mirror, nil
}

// readOnlyRun reports whether a run on ticket t promises no writes to the
// worktree (Job.ReadOnly): every run of a read-only project, and a run on
// a ticket in RESEARCH where a person approves each plan, since nothing
// may change before they approved it.
func readOnlyRun(p board.Project, t board.Ticket) bool {
	m := p.Agent.PermissionMode
	return m == board.ModeReadOnly || (t.State == board.Research && m.PersonApprovesPlans())
}
