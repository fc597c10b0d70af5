package web

import (
	"context"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/view"
)

// status loads what `bonsai status` shows.
func (s *Server) status(ctx context.Context) (view.Status, error) {
	var hb any = map[string]any{"lastBeat": nil, "paused": []any{}}
	if s.opts.Heartbeat != nil {
		hb = s.opts.Heartbeat()
	}
	o := view.StatusOptions{Heartbeat: hb, Now: time.Now(), Models: s.opts.Models, Sandbox: s.opts.Sandbox, Facts: s.opts.Facts}
	// On a board several machines share, the workers and their leases.
	if shared, ok := s.store.(view.WorkerSource); ok && s.opts.SharedBoard {
		o.Shared, o.Interval = shared, time.Minute
		if c, err := config.Load(s.opts.Dir.ConfigFile()); err == nil {
			o.Interval = time.Duration(c.Heartbeat.IntervalSec) * time.Second
		}
	}
	return view.LoadStatus(ctx, s.store, o)
}

// findRun returns the run with the given ID and its ticket.
func (s *Server) findRun(ctx context.Context, id string) (view.Run, error) {
	notFound := board.Errorf(board.ENOTFOUND, "run %q not found", id)
	ref, ok := s.runs.runRef(id)
	if !ok {
		return view.Run{}, notFound
	}
	runs, err := s.store.Runs(ctx, ref)
	if err != nil {
		return view.Run{}, err
	}
	for _, r := range runs {
		if r.ID == id {
			return view.NewRun(s.withRef(r, ref)), nil
		}
	}
	return view.Run{}, notFound
}

// withRef fills the run's ticket reference when the store left it empty.
func (s *Server) withRef(r board.Run, ref board.Ref) board.Run {
	if r.ProjectSlug == "" && ref.Project != "" {
		r.ProjectSlug, r.TicketNumber = ref.Project, ref.Number
	}
	return r
}
