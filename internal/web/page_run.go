package web

import (
	"net/http"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

type runPageView struct {
	Run     view.Run
	Entries []entryView
	Usage   turnTotals
	// Running is true while the run goes on: its record holds no usage
	// yet, so the page shows the usage the transcript recorded so far,
	// and its transcript streams on from Offset, the transcript's size
	// when read, with the message being written and the tool calls being
	// run (the ticket's activity stream).
	Running bool
	Offset  int64
}

// turnTotals sums the usage the transcript recorded per turn.
type turnTotals struct {
	Turns                 int
	Input, Output, Cached int64
	CostUSD               float64
}

// runPage shows one run: task, status, duration, tokens, cost and error,
// and the part of the ticket's transcript written while it ran.
func (s *Server) runPage(w http.ResponseWriter, r *http.Request) error {
	rv, err := s.findRun(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	// Entries are stamped when written; allow for clocks a second apart.
	from, to := rv.StartedAt.Add(-time.Second), time.Time{}
	if rv.FinishedAt != nil {
		to = rv.FinishedAt.Add(time.Second)
	}
	entries, offset, err := readTranscript(s.transcriptFile(r.Context(), rv.ProjectID, rv.TicketID), from, to)
	if err != nil {
		return err
	}
	v := runPageView{Run: rv, Entries: entries, Running: rv.Status == board.RunRunning, Offset: offset}
	for _, e := range entries {
		if e.Usage != nil {
			v.Usage.Turns++
			v.Usage.Input += e.Usage.Input
			v.Usage.Output += e.Usage.Output
			v.Usage.Cached += e.Usage.CacheRead
			v.Usage.CostUSD += e.Usage.Cost
		}
	}
	s.render(w, r, http.StatusOK, "run", pageData{Title: "Run on " + rv.Ref, Project: rv.ProjectSlug, Data: v})
	return nil
}
