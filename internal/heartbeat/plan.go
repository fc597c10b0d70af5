package heartbeat

import (
	"context"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Plan is what a beat intends to do for one project.
type Plan struct {
	Project board.Project
	Ticket  board.Ticket
	// Class is why the ticket was picked.
	Class board.PickClass
	Task  board.TaskKind
	// Model is the "provider/model" the agent would run.
	Model string
	// Blocker, when set, says why no agent will run: the model is not
	// configured, its provider is paused, the project's repository
	// failed recently, the project's sandbox cannot start or the
	// project's daily budget is used up.
	Blocker string
	// Sandbox, when set, says why the project's commands cannot run as
	// its sandbox setting asks (Options.Sandbox's answer). It blocks the
	// pick unless an earlier reason already does.
	Sandbox string
	// Rank is the ticket's place among its project's picks of the beat,
	// 0 for the first: a project whose agents work several tickets at
	// once (board.AgentSettings.MaxAgents) has one plan per ticket, in
	// the pick policy's order (many.go).
	Rank int
	// failed, for a variant that cannot run, fails it when the beat runs
	// (variants.go).
	failed *variantFailure
}

func (p Plan) report() RunReport {
	return RunReport{Ticket: p.Ticket.Ref().String(), Class: p.Class.String(), Task: p.Task}
}

// TaskFor returns the task of ticket t picked for class c. Work a person
// sent back is a feedback task even when picked for the feedback comment.
func TaskFor(c board.PickClass, t board.Ticket) board.TaskKind {
	switch {
	case c == board.ClassHumanReply && t.SubState == board.SubReturned:
		return board.TaskFeedback
	case c == board.ClassHumanReply:
		return board.TaskReply
	}
	switch c {
	case board.ClassReturned:
		return board.TaskFeedback
	case board.ClassInProgress:
		return board.TaskImplement
	}
	return board.TaskResearch
}

// Plan returns what a beat would do now, one entry per ticket it would
// work (one per project with work, up to its max-agents), by project slug
// and then in the pick policy's order. It takes no lock and changes nothing: it is
// `bonsai heartbeat --dry-run`.
func (h *Heartbeat) Plan(ctx context.Context) ([]Plan, error) {
	return h.plan(ctx, ReadState(h.opts.StateFile))
}

func (h *Heartbeat) plan(ctx context.Context, st *State) ([]Plan, error) {
	var picks []board.Pick
	var err error
	if h.opts.Ticket.Number != 0 {
		picks, err = bestOfN{h}.pickTold(ctx)
	} else {
		picks, err = h.opts.Store.Pick(ctx, h.opts.Project)
	}
	if err != nil {
		return nil, err
	}
	plans := make([]Plan, 0, len(picks))
	for _, pk := range picks {
		proj, err := h.opts.Store.Project(ctx, pk.Ticket.ProjectSlug)
		if err != nil {
			return nil, err
		}
		pks, err := projectPicks(ctx, h.opts.Store, h.opts.Ticket.Number != 0, proj, pk)
		if err != nil {
			return nil, err
		}
		p := Plan{Project: proj, Model: proj.Agent.Model}
		if p.Model == "" {
			p.Model = h.opts.DefaultModel
		}
		if p.Blocker, p.Sandbox, err = h.projectBlocker(ctx, st, proj, p.Model); err != nil {
			return nil, err
		}
		for rank, pk := range pks {
			p.Ticket, p.Class, p.Task, p.Rank = pk.Ticket, pk.Class, TaskFor(pk.Class, pk.Ticket), rank
			if p.Task == board.TaskFeedback || p.Task == board.TaskImplement {
				cs, err := h.opts.Store.Comments(ctx, pk.Ticket.Ref())
				if err != nil {
					return nil, err
				}
				if conflictPending(cs) {
					p.Task = board.TaskConflict
				}
			}
			if p.Task, err = verifyTask(ctx, h.opts.Store, pk.Ticket, p.Task); err != nil {
				return nil, err
			}
			plans = append(plans, p)
		}
	}
	return bestOfN{h}.variantPlans(ctx, st, plans)
}

// projectBlocker says why no agent of project proj may run model now, or
// "": the project's repository (local on a shared board, or backing
// off), the model, the sandbox (also returned alone as sandbox, which
// Plan.Sandbox keeps) and the daily budget, in that order.
func (h *Heartbeat) projectBlocker(ctx context.Context, st *State, proj board.Project, model string) (blocker, sandbox string, err error) {
	if h.opts.SharedBoard && board.IsLocalRepo(proj.Repo) {
		blocker = board.SharedRepoReason(proj.Repo) + "; set it with bonsai project edit " + proj.Slug + " --repo URL"
	}
	if blocker == "" {
		blocker = repoBlocker(st, proj, h.opts.Now())
	}
	if blocker == "" {
		blocker = h.blocker(proj, model, st)
	}
	if sandbox = checkSandbox(h.opts.Sandbox, proj); blocker == "" && sandbox != "" {
		blocker = sandboxBlocker(proj, sandbox)
	}
	if blocker == "" {
		blocker, err = dailyBlocker(ctx, h.opts.Store, h.opts.Now(), h.opts.Limits.Of(proj.Agent), proj)
	}
	return blocker, sandbox, err
}

// blocker says why model cannot run now, or "".
func (h *Heartbeat) blocker(proj board.Project, model string, st *State) string {
	if until, ok := st.Paused[providerOf(model)]; ok && h.opts.Now().Before(until) {
		return fmt.Sprintf("provider %s is paused after a rate-limit, quota or key error until %s",
			providerOf(model), until.UTC().Format(time.RFC3339))
	}
	if r, ok := h.opts.Runner.(ProjectReadiness); ok {
		if err := r.ReadyFor(proj, model); err != nil {
			return err.Error()
		}
	} else if r, ok := h.opts.Runner.(Readiness); ok {
		if err := r.Ready(model); err != nil {
			return err.Error()
		}
	}
	return ""
}
