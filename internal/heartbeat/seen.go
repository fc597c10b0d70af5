package heartbeat

import (
	"slices"
	"sync"
)

// seenComments are the IDs of the human comments a run's agent saw: those
// of its brief, then those steering handed it while it worked. They are
// marked resolved once the agent got to work. Safe for concurrent use.
type seenComments struct {
	mu  sync.Mutex
	ids []string
}

// add records that the agent saw comment id.
func (s *seenComments) add(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, id)
}

// has reports whether the agent saw comment id.
func (s *seenComments) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.ids, id)
}

// list returns the IDs seen so far, in the order seen.
func (s *seenComments) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ids)
}
