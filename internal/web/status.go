package web

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
)

// recentRunsShown is how many runs the status lists, as `bonsai status`.
const recentRunsShown = 10

// status loads what `bonsai status` shows.
func (s *Server) status(ctx context.Context) (view.Status, error) {
	v := view.Status{Projects: []view.ProjectSummary{}, Queue: []view.QueueEntry{}, RecentRuns: []view.Run{},
		Heartbeat: map[string]any{"lastBeat": nil, "paused": []any{}}}
	if s.opts.Heartbeat != nil {
		v.Heartbeat = s.opts.Heartbeat()
	}
	ps, err := s.store.Projects(ctx, store.ProjectFilter{})
	if err != nil {
		return v, err
	}
	counts, err := s.store.TicketCounts(ctx)
	if err != nil {
		return v, err
	}
	for _, p := range ps {
		v.Projects = append(v.Projects, view.ProjectSummary{Slug: p.Slug, Name: p.Name, Active: p.Active, Counts: view.NewStateCounts(counts[p.Slug])})
	}
	picks, err := s.store.Pick(ctx, "")
	if err != nil {
		return v, err
	}
	board.SortQueue(picks)
	for _, p := range picks {
		v.Queue = append(v.Queue, view.QueueEntry{
			Ref: p.Ticket.Ref().String(), Title: p.Ticket.Title, State: p.Ticket.State, SubState: p.Ticket.SubState,
			Priority: p.Ticket.Priority, Class: int(p.Class), Reason: p.Class.String(),
		})
	}
	runs, err := s.store.RecentRuns(ctx, recentRunsShown)
	if err != nil {
		return v, err
	}
	for _, r := range runs {
		ref, _ := s.runs.ref(r.TicketID)
		v.RecentRuns = append(v.RecentRuns, view.NewRun(s.withRef(r, ref)))
	}
	return v, nil
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
