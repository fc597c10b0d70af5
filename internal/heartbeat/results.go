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

// finish writes the results of a run (docs/design.md §8 step 5): the run
// record with its progress verdict, the human comments the agent saw
// marked resolved, a question blocking the ticket after a second run
// without progress (guard.go), else a status comment when the agent
// neither moved the ticket nor asked nor reported, the pushed branch, the
// commits recorded for review of a ticket moved to VERIFICATION
// (review.go), and a provider pause after a quota error.
func (r *runState) finish(ctx context.Context, out Outcome, st *State, rep *RunReport) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	h, ref := r.h, r.plan.Ticket.Ref()
	if r.ws != nil {
		defer r.closeWorkspace()
		defer r.reportRefusals(ctx)
	}
	var eff struct {
		asked, reported bool
		moved           board.State
	}
	var e tickettool.Effects
	if r.tools != nil {
		e = r.tools.Effects()
		eff.asked, eff.moved = e.Asked, e.MovedTo
		for _, c := range e.Comments {
			if c.Kind == board.KindStatus || c.Kind == board.KindCompletion {
				eff.reported = true
			}
		}
	}
	// A run that ended on an approval request waits for a person, like
	// one that asked a question: it is blocked, not failed.
	r.mu.Lock()
	eff.asked = eff.asked || r.requested
	r.mu.Unlock()
	if eff.asked && (out.Status == board.RunCompleted || out.Status == "") {
		out.Status = board.RunBlocked
	}
	run := r.run
	run.Status, run.Error = out.Status, out.Error
	run.Usage = out.Usage
	run.Progress = r.progressOf(ctx, out, e)
	finished, err := h.opts.Store.FinishRun(ctx, run)
	if err != nil {
		r.log.Error("finish run", "err", err)
	}
	rep.Status, rep.Error, rep.MovedTo = out.Status, out.Error, eff.moved
	if err == nil {
		rep.Guard = r.guard(ctx, finished)
	}

	// The agent saw the human comments and the decisions once it got to
	// work.
	if r.tools != nil && (out.Usage.OutputTokens > 0 || eff.asked || eff.moved != "" || eff.reported) {
		if len(r.seen) > 0 {
			if err := h.opts.Store.ResolveComments(ctx, ref, r.seen); err != nil {
				r.log.Error("resolve comments", "err", err)
			}
		}
		if len(r.decisions) > 0 {
			if err := h.opts.Store.MarkApprovalsTold(ctx, ref, r.decisions); err != nil {
				r.log.Error("mark approvals told", "err", err)
			}
		}
	}
	asked := rep.Guard != ""
	if !asked && out.Status == board.RunCompleted && eff.moved == "" && !eff.asked && r.tools != nil {
		asked = r.askPlanApproval(ctx)
	}
	switch {
	case out.Status == board.RunBudgetExceeded:
		r.budgetStop(ctx, out)
	case eff.moved == "" && !eff.asked && !asked && !eff.reported && r.tools != nil:
		r.note(ctx, board.KindStatus, statusText(out, r.plan.Task, h.opts.Now().Sub(r.run.StartedAt)))
	}
	if r.ws != nil {
		r.push(ctx, st, rep)
		if rep.MovedTo == board.Verification && !r.recordReview(ctx) {
			rep.MovedTo = board.InProgress
		}
		r.publish(ctx, rep)
	}
	if !out.RetryAt.IsZero() && out.RetryAt.After(h.opts.Now()) {
		p := providerOf(r.plan.Model)
		h.pause(st, p, out.RetryAt)
		r.log.Warn("provider paused", "provider", p, "until", out.RetryAt.UTC().Format(time.RFC3339))
	}
}

// askPlanApproval asks, for the agent, a person to approve its plan when
// the project's permission mode is plan and a run left its ticket in
// RESEARCH with a plan, neither moved nor blocked: the research prompt
// tells the agent to ask, and a run that forgot would otherwise research
// the ticket again on every beat. It reports whether it asked.
func (r *runState) askPlanApproval(ctx context.Context) bool {
	if !r.plan.Project.Agent.PermissionMode.PersonApprovesPlans() {
		return false
	}
	ref := r.plan.Ticket.Ref()
	t, err := r.h.opts.Store.Ticket(ctx, ref)
	if err != nil || t.State != board.Research || t.SubState == board.SubBlocked || strings.TrimSpace(t.Plan) == "" {
		return false
	}
	// A question from the agent blocks the ticket until a person answers.
	_, err = r.h.opts.Store.AddComment(ctx, ref, board.Comment{
		AuthorType: board.Agent, AuthorName: runtimeAuthor, Kind: board.KindQuestion,
		Content: "My plan is saved and waits for your approval. Move this ticket to IN_PROGRESS to let me implement it, or reply here to change the plan.",
	})
	if err != nil {
		r.log.Error("ask for plan approval", "err", err)
		return false
	}
	return true
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

// pause records that provider accepts requests again only at until.
func (h *Heartbeat) pause(st *State, provider string, until time.Time) {
	h.stateMu.Lock()
	defer h.stateMu.Unlock()
	if cur, ok := st.Paused[provider]; !ok || until.After(cur) {
		st.Paused[provider] = until
	}
}

// usd formats dollars as every comment and the CLI show them.
func usd(v float64) string {
	return board.USD(v)
}
