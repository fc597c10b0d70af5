package web

import (
	"net/http"

	"github.com/bonsai-run/bonsai/internal/board"
)

// stopForm is the ticket page's Stop button: it asks the beat running the
// ticket's run (another process) to stop it; the beat sees the request
// within a second and the page's events show the run end as stopped.
func (s *Server) stopForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	_, err = s.store.RequestStop(r.Context(), ref, s.opts.Author)
	return s.formResult(w, r, ref, err, "", func(v *ticketPageView, msg string) {
		v.Forms.RunErr = msg
	})
}

// runNowForm is the ticket page's Run now button: it starts a beat for
// this ticket at once (Options.RunNow), which respects the heartbeat lock
// and the board's rules, and says why when it cannot.
func (s *Server) runNowForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	if s.opts.RunNow == nil {
		err = board.Errorf(board.EREFUSED, "this server cannot start beats; run `bonsai ticket run %s`", ref)
	} else {
		_, err = s.opts.RunNow(r.Context(), ref)
	}
	if err == nil {
		// The run is in the event log now; read it before the redirect's
		// page load so that it shows the run.
		err = s.feed.poll(r.Context())
	}
	return s.formResult(w, r, ref, err, "", func(v *ticketPageView, msg string) {
		v.Forms.RunErr = msg
	})
}
