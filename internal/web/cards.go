package web

import (
	"context"
	"sync"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
)

// cardCache keeps, per project, the board's tickets without their long
// fields, so a board page does not read every ticket of the project again:
// the first view of a project reads them once, and from then on the event
// feed replaces each ticket that changes.
type cardCache struct {
	store Store
	feed  *feed

	mu       sync.Mutex
	projects map[string]map[string]board.Ticket // project ID → ticket ID → ticket
	counted  map[string]view.StateCounts        // project ID → counts, until its next change
}

func newCardCache(s Store, f *feed) *cardCache {
	return &cardCache{store: s, feed: f, projects: map[string]map[string]board.Ticket{}, counted: map[string]view.StateCounts{}}
}

// slim drops what cards never show.
func slim(t board.Ticket) board.Ticket {
	t.Description, t.Plan, t.Criteria = "", "", nil
	return t
}

// update records tickets the feed read after their events.
func (c *cardCache) update(items []item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, it := range items {
		if it.Ticket == nil {
			continue
		}
		if m, ok := c.projects[it.Ticket.ProjectID]; ok {
			m[it.Ticket.ID] = slim(*it.Ticket)
			delete(c.counted, it.Ticket.ProjectID)
		}
	}
}

// tickets returns the project's tickets as of the newest event: it reads
// the event log up to its end first (one indexed query), so a change made a
// moment ago by this or another process is on the page.
func (c *cardCache) tickets(ctx context.Context, p board.Project) ([]board.Ticket, error) {
	if err := c.feed.poll(ctx); err != nil {
		return nil, err
	}
	c.mu.Lock()
	m, ok := c.projects[p.ID]
	c.mu.Unlock()
	if !ok {
		var err error
		if m, err = c.load(ctx, p); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]board.Ticket, 0, len(m))
	for _, t := range m {
		out = append(out, t)
	}
	return out, nil
}

// load reads a project's tickets and installs them. Events the feed
// published while the query ran are applied on top, so none is lost.
func (c *cardCache) load(ctx context.Context, p board.Project) (map[string]board.Ticket, error) {
	cursor := c.feed.cursor()
	ts, err := c.store.Tickets(ctx, store.TicketFilter{ProjectSlug: p.Slug})
	if err != nil {
		return nil, err
	}
	m := make(map[string]board.Ticket, len(ts))
	for _, t := range ts {
		m[t.ID] = slim(t)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.projects[p.ID]; ok { // another request loaded it meanwhile
		return cur, nil
	}
	items, _, ok := c.feed.since(cursor)
	if !ok { // too far behind to patch: do not cache this read
		return m, nil
	}
	for _, it := range items {
		if it.Ticket != nil && it.Ticket.ProjectID == p.ID {
			m[it.Ticket.ID] = slim(*it.Ticket)
		}
	}
	c.projects[p.ID] = m
	return m, nil
}

// counts counts the project's tickets per state, reading the project first
// if no board of it was viewed yet. The counts are kept until the project's
// next change, so a hundred open boards count once per change.
func (c *cardCache) counts(ctx context.Context, p board.Project) (view.StateCounts, error) {
	c.mu.Lock()
	m, ok := c.projects[p.ID]
	if n, done := c.counted[p.ID]; done {
		c.mu.Unlock()
		return n, nil
	}
	c.mu.Unlock()
	if !ok {
		var err error
		if m, err = c.load(ctx, p); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := map[board.State]int{}
	for _, t := range m {
		n[t.State]++
	}
	counts := view.NewStateCounts(n)
	if c.projects[p.ID] != nil {
		c.counted[p.ID] = counts
	}
	return counts, nil
}
