package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
)

// projectCard is one project on the overview.
type projectCard struct {
	board.Project
	Counts     view.StateCounts
	Running    int     // agents working now
	Blocked    int     // tickets waiting on a person's answer
	SpentToday float64 // USD, today in the server's time zone
}

type projectsView struct {
	Projects []projectCard
	Archived []board.Project // listed by name only; their settings page unarchives them
	Form     newProjectInput
	Errors   map[string]string // field → message
}

func (s *Server) projectsPage(w http.ResponseWriter, r *http.Request) error {
	return s.renderProjects(w, r, http.StatusOK, projectsView{})
}

func (s *Server) renderProjects(w http.ResponseWriter, r *http.Request, status int, v projectsView) error {
	ctx := r.Context()
	all, err := s.store.Projects(ctx, store.ProjectFilter{IncludeArchived: true})
	if err != nil {
		return err
	}
	var ps []board.Project
	for _, p := range all {
		if p.Active {
			ps = append(ps, p)
		} else {
			v.Archived = append(v.Archived, p)
		}
	}
	counts, err := s.store.TicketCounts(ctx)
	if err != nil {
		return err
	}
	// Blocked tickets are in RESEARCH or IN_PROGRESS: the agent asks while
	// it works. Two indexed queries, whatever the number of projects.
	blocked := map[string]int{}
	for _, st := range []board.State{board.Research, board.InProgress} {
		ts, err := s.store.Tickets(ctx, store.TicketFilter{State: st})
		if err != nil {
			return err
		}
		for _, t := range ts {
			if t.SubState == board.SubBlocked {
				blocked[t.ProjectSlug]++
			}
		}
	}
	now := s.opts.Now()
	for _, p := range ps {
		running, spent := s.runs.project(p.ID, now)
		v.Projects = append(v.Projects, projectCard{Project: p, Counts: view.NewStateCounts(counts[p.Slug]),
			Running: running, Blocked: blocked[p.Slug], SpentToday: spent})
	}
	s.render(w, r, status, "projects", pageData{Title: "Projects", Data: v})
	return nil
}

// addProject is the overview's "Add project" form. Errors are shown next to
// the field they concern, with what was typed kept.
func (s *Server) addProject(w http.ResponseWriter, r *http.Request) error {
	in := newProjectInput{
		Slug: r.PostFormValue("slug"), Name: r.PostFormValue("name"), Repo: r.PostFormValue("repo"),
		Branch: r.PostFormValue("branch"), Model: r.PostFormValue("model"), Verify: r.PostFormValue("verify"),
	}
	budget := strings.TrimSpace(r.PostFormValue("budget"))
	if budget != "" {
		f, err := strconv.ParseFloat(budget, 64)
		if err != nil {
			return s.renderProjects(w, r, http.StatusBadRequest, projectsView{Form: in,
				Errors: map[string]string{"budget": "budget must be a number of dollars, e.g. 2.50"}})
		}
		in.BudgetUSD = f
	}
	p, err := s.createProject(r.Context(), in)
	if err != nil {
		status, _, msg := classify(err)
		if status >= 500 {
			return err
		}
		return s.renderProjects(w, r, status, projectsView{Form: in, Errors: map[string]string{projectField(msg): msg}})
	}
	http.Redirect(w, r, "/p/"+p.Slug, http.StatusSeeOther)
	return nil
}

// projectField names the form field an error message is about.
func projectField(msg string) string {
	for _, f := range []struct{ word, field string }{
		{"slug", "slug"}, {"already exists", "slug"}, {"branch", "branch"}, {"name", "name"}, {"repo", "repo"},
		{"model", "model"}, {"budget", "budget"},
	} {
		if strings.Contains(msg, f.word) {
			return f.field
		}
	}
	return "form"
}
