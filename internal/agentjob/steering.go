package agentjob

import (
	"sync"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Steering carries people's comments posted while a run works to the
// runner, which steers its agent with them. The runner attaches a
// function once its agent exists; comments arriving before that wait for
// the next poll. Steering is safe for concurrent use.
type Steering struct {
	mu sync.Mutex
	fn func([]board.Comment)
}

// Attach sets the function that receives new comments, nil to detach.
func (s *Steering) Attach(fn func([]board.Comment)) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.fn = fn
	s.mu.Unlock()
}

// Deliver hands cs to the attached function, reporting whether one was:
// the heartbeat calls it with the comments posted since the last call.
func (s *Steering) Deliver(cs []board.Comment) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fn == nil {
		return false
	}
	s.fn(cs)
	return true
}
