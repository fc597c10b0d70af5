package web

import (
	"errors"
	"net/http"

	"github.com/bonsai-run/bonsai/internal/insights"
	"github.com/bonsai-run/bonsai/internal/store"
)

// apiStats answers GET /api/stats?project=P&since=30d&by=model with the
// report `bonsai stats --json` prints.
func (s *Server) apiStats(w http.ResponseWriter, r *http.Request) error {
	src, ok := s.store.(insightsSource)
	if !ok {
		return errors.New("this store keeps no stats")
	}
	q := r.URL.Query()
	since := q.Get("since")
	if !q.Has("since") {
		since = "30d"
	}
	from, err := insights.ParseSince(since, s.opts.Now())
	if err != nil {
		return err
	}
	rep, err := insights.Load(r.Context(), src, insights.Options{Project: q.Get("project"), Since: from, By: q.Get("by")})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rep)
}

// insightsSource is what insights.Load reads, which every store.Store is.
type insightsSource interface {
	statsStore
	insights.Source
}

var _ insightsSource = store.Store(nil)
