package engine

import (
	"io"
	"os"
	"sync"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
)

// steerInput is a steerable engine's stdin: the first message, then the
// comments people post while the run works, each as a message; it ends
// (EOF, and the CLI exits) once every message was answered.
type steerInput struct {
	// r is the CLI's stdin: a file, so that the executor hands the CLI
	// the descriptor itself and nothing waits on a copy of it when the
	// CLI dies.
	r     *os.File
	e     Steerable
	steer *agentjob.Steering
	queue chan string // messages for the writer, in order

	mu      sync.Mutex
	sent    int // messages queued
	results int // results read
	closed  bool
}

func newSteerInput(e Steerable, first string, steer *agentjob.Steering) (*steerInput, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s := &steerInput{r: r, e: e, steer: steer, queue: make(chan string, 64), sent: 1}
	s.queue <- first
	go func() {
		for m := range s.queue {
			if _, err := io.WriteString(w, m); err != nil {
				break
			}
		}
		_ = w.Close()
	}()
	steer.Attach(s.comments)
	return s, nil
}

// comments sends people's new comments as a message, quoted as data as
// Bonsai's own agent gets them.
func (s *steerInput) comments(cs []board.Comment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.sent++
	s.queue <- s.e.Message(agentjob.SteerText(cs))
}

// answered counts a result; when every message has one, stdin ends.
// Steering is detached first, so a comment is either sent (and waited
// for) or left for the next beat, never dropped.
func (s *steerInput) answered() {
	s.mu.Lock()
	s.results++
	done := s.results >= s.sent
	s.mu.Unlock()
	if !done {
		return
	}
	s.steer.Attach(nil)
	s.mu.Lock()
	if s.results >= s.sent && !s.closed {
		s.closed = true
		close(s.queue)
	}
	closed := s.closed
	s.mu.Unlock()
	if !closed {
		s.steer.Attach(s.comments)
	}
}

// close detaches steering and ends stdin, once the CLI exited.
func (s *steerInput) close() {
	s.steer.Attach(nil)
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	_ = s.r.Close()
}
