package engine

import (
	"slices"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// runningCall is a tool call of the engine that started and has no
// result in the transcript yet.
type runningCall struct {
	call  llm.Part
	since time.Time
}

// liveToolDelay is how long calls run before the live file shows them,
// as for Bonsai's own agent: most end sooner (the board tools always),
// and writing them would only churn the file, and a shared board's store,
// at the moment the runner must stop a CLI a board tool ended.
const liveToolDelay = 500 * time.Millisecond

// toolStart notes a call that started running; calls still running
// liveToolDelay later show in the live file as Bonsai's own agent's do:
// name, arguments and start time (the page shows how long each runs).
// Called with s.mu held.
func (s *stream) toolStart(c llm.Part) {
	if slices.ContainsFunc(s.running, func(r runningCall) bool { return r.call.ID == c.ID }) {
		return
	}
	s.running = append(s.running, runningCall{call: c, since: s.r.opts.Now()})
	switch {
	case s.shown:
		s.live.ToolStart(2*(len(s.running)-1), c.Name, c.Arguments, s.running[len(s.running)-1].since)
	case s.toolTimer == nil:
		gen := s.toolGen
		s.toolTimer = time.AfterFunc(liveToolDelay, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if gen == s.toolGen && len(s.running) > 0 && !s.shown {
				s.showTools()
			}
		})
	}
}

// showTools starts a live file of the running calls at the transcript's
// present end.
func (s *stream) showTools() {
	s.live.Start()
	for i, r := range s.running {
		s.live.ToolStart(2*i, r.call.Name, r.call.Arguments, r.since)
	}
	s.shown = true
}

// toolsAfter follows a message written to the transcript: a tool result
// ends its call. The live file of running calls, whose place in the
// transcript moved, is started anew with the calls still running, or
// ended when none is.
func (s *stream) toolsAfter(m llm.Message) {
	if m.Role == llm.RoleToolResult {
		s.running = slices.DeleteFunc(s.running, func(r runningCall) bool { return r.call.ID == m.ToolCallID })
	}
	if len(s.running) == 0 && s.toolTimer != nil {
		s.toolTimer.Stop()
		s.toolTimer = nil
		s.toolGen++
	}
	if !s.shown {
		return
	}
	if len(s.running) == 0 {
		s.live.End()
		s.shown = false
		return
	}
	s.showTools()
}
