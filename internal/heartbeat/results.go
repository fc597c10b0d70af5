package heartbeat

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat/tickettool"
)

// recordTimeout bounds writing a run's results, which happens even when
// the beat's context is over.
const recordTimeout = 30 * time.Second

// maxSummary bounds the agent's last words quoted in a status comment.
const maxSummary = 2000

// effects is what the agent did through its ticket tools that decides
// what the runtime writes after the run.
type effects struct {
	tickettool.Effects
	asked    bool // asked a question, or ended on an approval request
	reported bool // wrote a status or completion comment
}

// effectsOf reads the effects of the run's ticket tools; a run that ended
// on an approval request waits for a person, like one that asked a
// question.
func (r *runState) effectsOf() effects {
	var e effects
	if r.tools != nil {
		e.Effects = r.tools.Effects()
		e.asked = e.Asked
		for _, c := range e.Comments {
			if c.Kind == board.KindStatus || c.Kind == board.KindCompletion {
				e.reported = true
			}
		}
	}
	e.asked = e.asked || (r.approver != nil && r.approver.asked())
	return e
}

// finish writes the results of a run (docs/design.md §8 step 5): the run
// record with its progress verdict, the human comments the agent saw
// marked resolved, a question blocking the ticket after a second run
// without progress (guard.go), else a status comment when the agent
// neither moved the ticket nor asked nor reported, the pushed branch, the
// commits recorded for review of a ticket moved to VERIFICATION
// (review.go), and a provider pause after a quota error.
func (r *runState) finish(ctx context.Context, out Outcome, rep *RunReport) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	h := r.h
	if r.ws != nil {
		defer r.closeWorkspace()
		defer func() {
			if text := refusalsText(r.ws.Exec); text != "" {
				r.notes.note(ctx, board.KindNote, text)
			}
		}()
	}
	eff := r.effectsOf()
	if eff.asked && (out.Status == board.RunCompleted || out.Status == "") {
		out.Status = board.RunBlocked
	}
	worked := r.tools != nil
	run := r.run
	run.Status, run.Error = out.Status, out.Error
	run.Usage, run.Turns = out.Usage, r.meter.standing(nil).Turns
	run.Progress = r.guard.verdict(ctx, out, worked, eff.Effects)
	finished, err := h.opts.Store.FinishRun(ctx, run)
	if err != nil {
		r.log.Error("finish run", "err", err)
	}
	rep.Status, rep.Error, rep.MovedTo = out.Status, out.Error, eff.MovedTo
	if err == nil {
		rep.Guard = r.guard.block(ctx, finished)
	}
	// The agent saw the human comments and the decisions once it got to
	// work.
	if worked && (out.Usage.OutputTokens > 0 || eff.asked || eff.MovedTo != "" || eff.reported) {
		r.markTold(ctx)
	}
	r.comment(ctx, out, eff, rep.Guard != "")
	if r.ws != nil {
		r.publishWork(ctx, rep)
	}
	if !out.RetryAt.IsZero() && out.RetryAt.After(h.opts.Now()) {
		p := providerOf(r.plan.Model)
		r.ledger.pause(p, out.RetryAt)
		r.log.Warn("provider paused", "provider", p, "until", out.RetryAt.UTC().Format(time.RFC3339))
	}
}

// markTold marks the human comments the agent saw resolved, and the
// decisions it was told told.
func (r *runState) markTold(ctx context.Context) {
	ref := r.plan.Ticket.Ref()
	if seen := r.seen.list(); len(seen) > 0 {
		if err := r.h.opts.Store.ResolveComments(ctx, ref, seen); err != nil {
			r.log.Error("resolve comments", "err", err)
		}
	}
	if len(r.decisions) > 0 {
		if err := r.h.opts.Store.MarkApprovalsTold(ctx, ref, r.decisions); err != nil {
			r.log.Error("mark approvals told", "err", err)
		}
	}
}

// comment writes what the run leaves unsaid: the question asking a
// person to approve a plan the agent did not ask about, the budget stop,
// or a status comment when the agent neither moved the ticket nor asked
// nor reported. guarded reports that the guard blocked the ticket.
func (r *runState) comment(ctx context.Context, out Outcome, eff effects, guarded bool) {
	worked := r.tools != nil
	asked := guarded
	if !asked && out.Status == board.RunCompleted && eff.MovedTo == "" && !eff.asked && worked {
		asked = askPlanApproval(ctx, r.h.opts.Store, r.notes, r.plan)
	}
	switch {
	case out.Status == board.RunBudgetExceeded:
		sp, err := spending(ctx, r.h.opts.Store, r.h.opts.Now(), r.limits, r.plan.Project, r.plan.Ticket.Ref())
		if err != nil {
			r.log.Error("read spend for the budget comment", "err", err)
		}
		r.notes.post(ctx, budgetStopComment(r.plan.Project, r.limits, out, sp), "post budget comment")
	case eff.MovedTo == "" && !eff.asked && !asked && !eff.reported && worked:
		r.notes.note(ctx, board.KindStatus, statusText(out, r.plan.Task, r.h.opts.Now().Sub(r.run.StartedAt)))
	}
}

// publishWork pushes the run's branch, records the work of a ticket moved
// to VERIFICATION for review (back to IN_PROGRESS when there is nothing
// to review) and opens or updates its pull request.
func (r *runState) publishWork(ctx context.Context, rep *RunReport) {
	h, p := r.h, r.plan
	pusher{workspaces: h.opts.Workspaces, ledger: r.ledger, notes: r.notes, log: r.log}.push(ctx, p.Project, r.ws, rep)
	reviews := reviewRecorder{workspaces: h.opts.Workspaces, store: h.opts.Store, notes: r.notes, redact: h.opts.Redact, log: r.log}
	if rep.MovedTo == board.Verification && !reviews.record(ctx, p.Project, p.Ticket, r.ws.Branch) {
		rep.MovedTo = board.InProgress
	}
	publisher{prs: h.opts.PullRequests, store: h.opts.Store, redact: h.opts.Redact, log: r.log}.publish(ctx, p.Project, p.Ticket.Ref(), rep)
}

// askPlanApproval asks, for the agent, a person to approve its plan when
// the project's permission mode is plan and a run left its ticket in
// RESEARCH with a plan, neither moved nor blocked: the research prompt
// tells the agent to ask, and a run that forgot would otherwise research
// the ticket again on every beat. It reports whether it asked.
func askPlanApproval(ctx context.Context, st interface {
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
}, notes ticketNotes, p Plan) bool {
	if !p.Project.Agent.PermissionMode.PersonApprovesPlans() {
		return false
	}
	t, err := st.Ticket(ctx, p.Ticket.Ref())
	if err != nil || t.State != board.Research || t.SubState == board.SubBlocked || strings.TrimSpace(t.Plan) == "" {
		return false
	}
	return notes.ask(ctx, "My plan is saved and waits for your approval. Move this ticket to IN_PROGRESS to let me implement it, or reply here to change the plan.", "ask for plan approval")
}

// statusText is the runtime's status comment for a run that ended without
// the agent moving the ticket, asking or reporting.
func statusText(out Outcome, task board.TaskKind, d time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run (%s) ended **%s** after %s", task, out.Status, d.Round(time.Second))
	fmt.Fprintf(&b, ", %d tokens in, %d out, %s.", out.Usage.InputTokens, out.Usage.OutputTokens, board.USD(out.Usage.CostUSD))
	if out.Error != "" {
		fmt.Fprintf(&b, "\n\nError: %s", out.Error)
	}
	if s := strings.TrimSpace(out.Summary); s != "" {
		if len(s) > maxSummary {
			s = s[:maxSummary] + " […]"
		}
		fmt.Fprintf(&b, "\n\nThe agent's last words:\n\n> %s", strings.ReplaceAll(s, "\n", "\n> "))
	}
	if out.Status == board.RunTimeout {
		b.WriteString("\n\nThe next beat resumes from the transcript.")
	}
	return b.String()
}

// usd formats dollars as every comment and the CLI show them.
func usd(v float64) string {
	return board.USD(v)
}
