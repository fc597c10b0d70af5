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

// toolStart shows a call that started running in the live file, as
// Bonsai's own agent's are: its name, arguments and start time (the page
// shows how long it runs), in the live file of running calls, started
// when none is open.
func (s *stream) toolStart(c llm.Part) {
	if slices.ContainsFunc(s.running, func(r runningCall) bool { return r.call.ID == c.ID }) {
		return
	}
	s.running = append(s.running, runningCall{call: c, since: s.r.opts.Now()})
	if !s.shown {
		s.showTools()
		return
	}
	s.live.ToolStart(2*(len(s.running)-1), c.Name, c.Arguments, s.running[len(s.running)-1].since)
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
