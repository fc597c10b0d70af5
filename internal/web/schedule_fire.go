package web

import (
	"context"
	"net/http"

	"github.com/bonsai-run/bonsai/internal/board"
)

// fireSchedule fires a schedule now, as `bonsai schedule fire` does
// (Options.FireSchedule): the overlap rule and the pre-check apply, and
// the ticket it creates waits for the next beat. It returns what
// happened, for people; a schedule that cannot fire now is EREFUSED.
func (s *Server) fireSchedule(ctx context.Context, slug, name string) (string, error) {
	ss, err := s.schedules()
	if err != nil {
		return "", err
	}
	if _, err := ss.Schedule(ctx, slug, name); err != nil {
		return "", err
	}
	if s.opts.FireSchedule == nil {
		return "", board.Errorf(board.EREFUSED, "this server cannot fire schedules; run `bonsai schedule fire %s %s`", slug, name)
	}
	return s.opts.FireSchedule(ctx, slug, name)
}

// apiFireSchedule is Fire now for scripts: 200 with {"message"} saying
// what the firing did, 422 when the schedule cannot fire now.
func (s *Server) apiFireSchedule(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(r); err != nil {
		return err
	}
	msg, err := s.fireSchedule(r.Context(), r.PathValue("slug"), r.PathValue("name"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, runControlAnswer{Message: msg})
}
