package web

import (
	"context"
	"sync"
	"time"

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
	c.list, c.at = view.Blockers(models, sums, facts), now
	return c.list
}

// forget makes the next page compute the list again, after a person
// changed what it depends on (a key, a project's settings).
func (c *blockerCache) forget() {
	c.mu.Lock()
	c.list = nil
	c.mu.Unlock()
}
