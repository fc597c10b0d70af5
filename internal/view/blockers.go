package view

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// The kinds of Blocker.
const (
	BlockerModel   = "model"   // no key, an unknown provider: ModelStatus.Problem
	BlockerPaused  = "paused"  // a provider paused after a rate limit, quota or refused key
	BlockerSandbox = "sandbox" // the sandbox the project requires cannot start
	BlockerBudget  = "budget"  // the project's daily budget is used up
	BlockerRepo    = "repo"    // the project's repository failed to clone or fetch
	BlockerForge   = "forge"   // pull requests the last beat could not follow
	BlockerTracker = "tracker" // the project's issue tracker failed to sync
)

// Blocker is one reason agents cannot run, as the banner of every web
// page shows it: what is wrong, how to fix it, and the active projects
// whose agents wait meanwhile.
type Blocker struct {
	Kind     string   `json:"kind"`
	Reason   string   `json:"reason"`
	Fix      string   `json:"fix,omitempty"`
	Projects []string `json:"projects"`
}

// StopsAgents reports whether b keeps agents from running; a forge or a
// tracker that fails to sync does not (the agents run, what the forge or
// tracker says does not reach them meanwhile).
func (b Blocker) StopsAgents() bool { return b.Kind != BlockerForge && b.Kind != BlockerTracker }

// AgentFacts is what the heartbeat's saved state (heartbeat.json) says
// stops agents, in the terms of this package; view/text makes it from
// heartbeat.State.
type AgentFacts struct {
	// Paused are the providers paused until a time after now.
	Paused []PausedProvider
	// Repos are the projects whose repository failed, waiting until a
	// time after now.
	Repos []RepoWait
	// Skips are the tickets the last beat skipped and why.
	Skips []Skip
	// Unfollowed are the tickets whose pull request the last beat could
	// not follow, and why.
	Unfollowed []Skip
	// Trackers are the projects whose issue tracker failed to sync, as
	// their stored sync state says.
	Trackers []board.TrackerSync
}

// PausedProvider is a provider the heartbeat leaves alone until Until.
type PausedProvider struct {
	Provider string
	Until    time.Time
}

// RepoWait is a project whose repository failed to clone or fetch.
type RepoWait struct {
	Project string
	Until   time.Time
	Error   string
}

// Skip is a ticket ("demo#3") a beat did not run, and why.
type Skip struct {
	Ticket string
	Reason string
}

// Blockers lists why agents cannot run: the models with a problem, the
// paused providers (with the projects whose model uses them), the
// projects whose required sandbox cannot start, whose repository failed
// or whose daily budget the last beat found used up. Only active projects
// count. The list is in that order, never nil.
func Blockers(models []ModelStatus, projects []ProjectSummary, f AgentFacts) []Blocker {
	out := []Blocker{}
	active := map[string]bool{}
	for _, p := range projects {
		if p.Active {
			active[p.Slug] = true
		}
	}
	for _, m := range models {
		if m.Problem != "" {
			out = append(out, Blocker{Kind: BlockerModel, Reason: fmt.Sprintf("Model %s cannot run: %s", m.Model, m.Problem),
				Fix: "Set the key on the settings page, or run 'bonsai credentials set " + providerOf(m.Model) + "'.", Projects: nonNil(m.Projects)})
		}
	}
	for _, p := range f.Paused {
		var ps []string
		for _, m := range models {
			if providerOf(m.Model) == p.Provider && m.Problem == "" {
				ps = append(ps, m.Projects...)
			}
		}
		sort.Strings(ps)
		out = append(out, Blocker{Kind: BlockerPaused,
			Reason: fmt.Sprintf("Provider %s is paused until %s after a rate limit, an exhausted quota or a refused key.", p.Provider, p.Until.Local().Format("15:04 Jan 2")),
			Fix:    "It resumes on its own; if the key was refused, replace it on the settings page. logs/heartbeat.log has the provider's answer.", Projects: nonNil(ps)})
	}
	var sandbox []string
	problem := ""
	for _, p := range projects {
		if p.Active && p.SandboxProblem != "" {
			sandbox, problem = append(sandbox, p.Slug), p.SandboxProblem
		}
	}
	if problem != "" {
		out = append(out, Blocker{Kind: BlockerSandbox, Reason: "The sandbox cannot start: " + problem,
			Fix: "Install or repair it ('bonsai doctor' checks it), or turn the project's sandbox off in its settings.", Projects: sandbox})
	}
	for _, r := range f.Repos {
		if active[r.Project] {
			out = append(out, Blocker{Kind: BlockerRepo, Reason: fmt.Sprintf("The repository of %s failed to clone or fetch: %s", r.Project, r.Error),
				Fix: fmt.Sprintf("Check its URL and access in the project's settings; the heartbeat tries again at %s.", r.Until.Local().Format("15:04")), Projects: []string{r.Project}})
		}
	}
	for _, s := range f.Skips {
		slug, _, _ := strings.Cut(s.Ticket, "#")
		if active[slug] && strings.Contains(s.Reason, "budget is used up") {
			out = append(out, Blocker{Kind: BlockerBudget, Reason: "Daily budget reached: " + s.Reason,
				Fix: "Wait for midnight, or raise the project's daily budget in its settings.", Projects: []string{slug}})
		}
	}
	out = append(out, unfollowed(f.Unfollowed, active)...)
	return append(out, trackers(f.Trackers, active)...)
}

// trackers is one blocker per active project whose tracker's last sync
// failed. Agents still run; the tracker's issues and comments do not
// reach the project meanwhile.
func trackers(syncs []board.TrackerSync, active map[string]bool) []Blocker {
	var out []Blocker
	for _, s := range syncs {
		if s.Error == "" || !active[s.ProjectSlug] {
			continue
		}
		out = append(out, Blocker{Kind: BlockerTracker, Projects: []string{s.ProjectSlug},
			Reason: fmt.Sprintf("The %s tracker of %s failed to sync %d times in a row: %s", s.Tracker, s.ProjectSlug, s.Failures, s.Error),
			Fix:    "Until it syncs, new issues and comments there do not reach the project; 'bonsai doctor' checks the tracker's token. The heartbeat tries again every beat."})
	}
	return out
}

// unfollowed is one blocker per distinct failure to follow pull
// requests (a token without a scope fails them all alike), naming the
// tickets of active projects. Agents still run; reviews and checks do
// not reach those tickets meanwhile.
func unfollowed(fails []Skip, active map[string]bool) []Blocker {
	var reasons []string
	tickets, projects := map[string][]string{}, map[string][]string{}
	for _, u := range fails {
		slug, _, _ := strings.Cut(u.Ticket, "#")
		if !active[slug] {
			continue
		}
		if tickets[u.Reason] == nil {
			reasons = append(reasons, u.Reason)
		}
		tickets[u.Reason] = append(tickets[u.Reason], u.Ticket)
		if !contains(projects[u.Reason], slug) {
			projects[u.Reason] = append(projects[u.Reason], slug)
		}
	}
	var out []Blocker
	for _, r := range reasons {
		out = append(out, Blocker{Kind: BlockerForge, Projects: projects[r],
			Reason: fmt.Sprintf("Bonsai cannot follow the pull requests of %s: %s", strings.Join(tickets[r], ", "), r),
			Fix:    "Until it can, their reviews and checks do not reach the tickets: read them on the forge before approving. 'bonsai doctor' checks the forge's token and its scopes."})
	}
	return out
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func providerOf(model string) string {
	p, _, _ := strings.Cut(model, "/")
	return p
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// NotRun says why the heartbeat does not run an agent on the ticket ref
// ("demo#3"): the reason the last beat skipped it, else the blockers that
// name its project. Empty when nothing stops it.
func NotRun(ref string, f AgentFacts, bs []Blocker) []string {
	for _, s := range f.Skips {
		if s.Ticket == ref {
			return []string{"the last beat did not run it: " + s.Reason}
		}
	}
	slug, _, _ := strings.Cut(ref, "#")
	var out []string
	for _, b := range bs {
		if !b.StopsAgents() {
			continue // agents run; only their pull requests or issues are not followed
		}
		for _, p := range b.Projects {
			if p == slug {
				out = append(out, b.Reason+" "+b.Fix)
				break
			}
		}
	}
	return out
}

// SandboxSummaries returns, for Blockers, each project's slug, name,
// active flag and, for the active projects that require the sandbox, why
// it cannot start (sandbox is called at most once; nil checks nothing).
func SandboxSummaries(ps []board.Project, sandbox func() error) []ProjectSummary {
	out := make([]ProjectSummary, 0, len(ps))
	var err error
	checked := false
	for _, p := range ps {
		sum := ProjectSummary{Slug: p.Slug, Name: p.Name, Active: p.Active}
		if p.Active && p.Agent.Sandbox == board.SandboxRequired && sandbox != nil {
			if !checked {
				err, checked = sandbox(), true
			}
			if err != nil {
				sum.SandboxProblem = SandboxReason(err)
			}
		}
		out = append(out, sum)
	}
	return out
}

// AgentsWorkOn reports whether the heartbeat would run an agent on t:
// it is in RESEARCH or IN_PROGRESS and waits on no person.
func AgentsWorkOn(t board.Ticket) bool {
	return (t.State == board.Research || t.State == board.InProgress) && t.SubState != board.SubBlocked
}
