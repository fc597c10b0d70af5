package web

import (
	"context"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
)

// blockersTTL is how long the banner's list is reused: its sources (the
// projects, the key checks, heartbeat.json) change at most once a beat,
// and every page shows it.
const blockersTTL = 3 * time.Second

// blockerCache keeps the last list of why agents cannot run.
type blockerCache struct {
	mu   sync.Mutex
	at   time.Time
	list []view.Blocker
}

// blockers returns why agents cannot run (view.Blockers), computed at
// most once per blockersTTL. A store failure shows no banner; the page
// itself reports it.
func (s *Server) blockers(ctx context.Context) []view.Blocker {
	c := &s.blocked
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if c.list != nil && now.Sub(c.at) < blockersTTL {
		return c.list
	}
	ps, err := s.store.Projects(ctx, store.ProjectFilter{})
	if err != nil {
		return nil
	}
	var models []view.ModelStatus
	if s.opts.Models != nil {
		models = s.opts.Models(ps)
	}
	sums := view.SandboxSummaries(ps, s.opts.Sandbox)
	var facts view.AgentFacts
	if s.opts.Facts != nil {
		facts = s.opts.Facts()
	}
	facts.Trackers = s.failedTrackers(ctx, ps)
	c.list, c.at = view.Blockers(models, sums, facts), now
	return c.list
}

// failedTrackers reads the sync state of every active project with a
// tracker and keeps those whose last sync failed.
func (s *Server) failedTrackers(ctx context.Context, ps []board.Project) []board.TrackerSync {
	var out []board.TrackerSync
	for _, p := range ps {
		if !p.Active || p.Agent.Tracker == board.TrackerNone {
			continue
		}
		if ts, err := s.store.TrackerSync(ctx, p.Slug); err == nil && ts.Error != "" {
			out = append(out, ts)
		}
	}
	return out
}

// forget makes the next page compute the list again, after a person
// changed what it depends on (a key, a project's settings).
func (c *blockerCache) forget() {
	c.mu.Lock()
	c.list = nil
	c.mu.Unlock()
}
