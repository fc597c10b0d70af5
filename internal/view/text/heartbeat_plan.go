package text

import (
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// PlanView is one line of `heartbeat --dry-run --json`.
type PlanView struct {
	Project string `json:"project"`
	Ticket  string `json:"ticket"`
	Title   string `json:"title"`
	State   string `json:"state"`
	Reason  string `json:"reason"`
	Task    string `json:"task"`
	Model   string `json:"model"`
	Blocked string `json:"blocked,omitempty"`
}

// PlanViews are the plans as `heartbeat --dry-run --json` prints them;
// an empty list, never null.
func PlanViews(plans []heartbeat.Plan) []PlanView {
	out := []PlanView{}
	for _, p := range plans {
		out = append(out, PlanView{Project: p.Project.Slug, Ticket: p.Ticket.Ref().String(), Title: p.Ticket.Title,
			State: string(p.Ticket.State), Reason: p.Class.String(), Task: string(p.Task), Model: p.Model, Blocked: p.Blocker})
	}
	return out
}

// IdleProjects lists the projects of ps (only the one named only, when
// given) that have no plan: a beat would pick nothing there.
func IdleProjects(ps []board.Project, plans []heartbeat.Plan, only string) []string {
	busy := map[string]bool{}
	for _, p := range plans {
		busy[p.Project.Slug] = true
	}
	var idle []string
	for _, p := range ps {
		if !busy[p.Slug] && (only == "" || p.Slug == only) {
			idle = append(idle, p.Slug)
		}
	}
	return idle
}
