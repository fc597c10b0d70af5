package web

import (
	"context"
	"net/http"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

// writeProject answers with p and its ticket counts, as GET
// /api/projects/{slug} and `bonsai project show --json` do.
func (s *Server) writeProject(ctx context.Context, w http.ResponseWriter, status int, p board.Project) error {
	counts, err := s.store.TicketCounts(ctx)
	if err != nil {
		return err
	}
	return writeJSON(w, status, view.ProjectDetail{Project: p, Counts: view.NewStateCounts(counts[p.Slug])})
}

func (s *Server) apiEditProject(w http.ResponseWriter, r *http.Request) error {
	var e projectEdit
	if err := decodeJSON(r, &e); err != nil {
		return err
	}
	p, err := s.editProject(r.Context(), r.PathValue("slug"), e)
	if err != nil {
		return err
	}
	return s.writeProject(r.Context(), w, http.StatusOK, p)
}

func (s *Server) apiArchiveProject(w http.ResponseWriter, r *http.Request) error {
	p, err := s.store.ArchiveProject(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	return s.writeProject(r.Context(), w, http.StatusOK, p)
}

func (s *Server) apiUnarchiveProject(w http.ResponseWriter, r *http.Request) error {
	p, err := s.store.RestoreProject(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	return s.writeProject(r.Context(), w, http.StatusOK, p)
}
