package web

import "net/http"

type runPageView struct {
	Run runView
}

// runPage shows one run: task, status, duration, tokens, cost and error.
func (s *Server) runPage(w http.ResponseWriter, r *http.Request) error {
	rv, err := s.findRun(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "run", pageData{Title: "Run on " + rv.Ref, Project: rv.ProjectSlug, Data: runPageView{Run: rv}})
	return nil
}
