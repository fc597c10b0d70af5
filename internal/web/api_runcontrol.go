package web

import (
	"net/http"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

// apiStop is the Stop button for scripts: it asks the beat running the
// ticket's run to stop it and answers the run. A ticket with no running
// run is 409, as the store says (ECONFLICT).
func (s *Server) apiStop(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	if err := noBody(r); err != nil {
		return err
	}
	run, err := s.store.RequestStop(r.Context(), ref, s.opts.Author)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, runControlAnswer{
		Message: "asked " + ref.String() + "'s run to stop; the beat running it stops it within a few seconds and records it as stopped",
		Run:     ptrTo(view.NewRun(s.withRef(run, ref))),
	})
}

// apiRunNow is the Run now button for scripts: it starts a beat for the
// ticket (Options.RunNow) under the heartbeat lock and the board's rules,
// and answers 202 with what happened, or 422 saying why it cannot run.
func (s *Server) apiRunNow(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	if err := noBody(r); err != nil {
		return err
	}
	if _, err := s.store.Ticket(r.Context(), ref); err != nil {
		return err
	}
	if s.opts.RunNow == nil {
		return board.Errorf(board.EREFUSED, "this server cannot start beats; run `bonsai ticket run %s`", ref)
	}
	msg, err := s.opts.RunNow(r.Context(), ref)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, runControlAnswer{Message: msg})
}

// runControlAnswer is the answer of the stop and run routes.
type runControlAnswer struct {
	// Message says what happened, for people.
	Message string `json:"message"`
	// Run is the run asked to stop (stop only).
	Run *view.Run `json:"run,omitempty"`
}

// noBody refuses a request body: these routes take none, and a body a
// script sent by mistake must not pass for options they ignore.
func noBody(r *http.Request) error {
	if r.ContentLength > 0 {
		return badRequest("this route takes no request body")
	}
	return nil
}

func ptrTo[T any](v T) *T { return &v }
