package web

import (
	"context"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/view"
)

// stepCache keeps the last list of next steps (Options.NextSteps) for
// blockersTTL: every page shows it.
type stepCache struct {
	mu   sync.Mutex
	at   time.Time
	list []view.Step
}

// nextSteps returns what a person does before agents can work (a project
// to add, a key to store), computed at most once per blockersTTL; none
// without Options.NextSteps.
func (s *Server) nextSteps(ctx context.Context) []view.Step {
	if s.opts.NextSteps == nil {
		return nil
	}
	c := &s.steps
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if c.list != nil && now.Sub(c.at) < blockersTTL {
		return c.list
	}
	c.list, c.at = s.opts.NextSteps(ctx), now
	if c.list == nil {
		c.list = []view.Step{}
	}
	return c.list
}

// forget makes the next page compute the list again.
func (c *stepCache) forget() {
	c.mu.Lock()
	c.list = nil
	c.mu.Unlock()
}
