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

// Plan returns what a beat would do now, one entry per project with work,
// by project slug. It takes no lock and changes nothing: it is
// `bonsai heartbeat --dry-run`.
func (h *Heartbeat) Plan(ctx context.Context) ([]Plan, error) {
	return h.plan(ctx, ReadState(h.opts.StateFile))
}

func (h *Heartbeat) plan(ctx context.Context, st *State) ([]Plan, error) {
	var picks []board.Pick
	var err error
	if h.opts.Ticket.Number != 0 {
		picks, err = pickOne(ctx, h.opts.Store, h.opts.Ticket)
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
		p := Plan{Project: proj, Ticket: pk.Ticket, Class: pk.Class, Task: TaskFor(pk.Class, pk.Ticket), Model: proj.Agent.Model}
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
		if p.Model == "" {
			p.Model = h.opts.DefaultModel
		}
		if h.opts.SharedBoard && board.IsLocalRepo(proj.Repo) {
			p.Blocker = board.SharedRepoReason(proj.Repo) + "; set it with bonsai project edit " + proj.Slug + " --repo URL"
		}
		if p.Blocker == "" {
			p.Blocker = repoBlocker(st, proj, h.opts.Now())
		}
		if p.Blocker == "" {
			p.Blocker = h.blocker(proj, p.Model, st)
		}
		if p.Sandbox = checkSandbox(h.opts.Sandbox, proj); p.Blocker == "" && p.Sandbox != "" {
			p.Blocker = sandboxBlocker(proj, p.Sandbox)
		}
		if p.Blocker == "" {
			if p.Blocker, err = dailyBlocker(ctx, h.opts.Store, h.opts.Now(), h.opts.Limits.Of(proj.Agent), proj); err != nil {
				return nil, err
			}
		}
		plans = append(plans, p)
	}
	return plans, nil
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
