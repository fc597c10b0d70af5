package engine

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// stream reads the events of one start of the CLI, line by line as it
// prints them, into the ticket's transcript, its live file and the
// result; it ends the start (cancel) when the transcript's store refuses
// a line, a board tool ended the run, the token budget is spent or a
// command met a sandbox limit. handle is safe for concurrent use.
type stream struct {
	r      *Runner
	e      Engine
	job    agentjob.Job
	in     Invocation
	sess   *session.File
	bs     *boardServer // nil: no board tools
	parser Parser
	live   *session.LiveWriter
	cancel context.CancelFunc
	onDone func() // a steerable engine answered a message; nil: not steerable

	mu      sync.Mutex
	running []runningCall // the tool calls running, in start order (livetools.go)
	shown   bool          // the live file holds the running calls
	// toolTimer shows the running calls once they ran liveToolDelay;
	// toolGen counts the groups of calls, so a late timer shows nothing.
	toolTimer *time.Timer
	toolGen   int
	total     llm.Usage // the vendor session's total before this start
	vendor    string    // the vendor session's id
	res       result
}

// handle reads one line the CLI printed; nil flushes the parser at the
// end.
func (s *stream) handle(line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var evs []Event
	if line == nil {
		evs = s.parser.Flush()
	} else {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			return
		}
		var err error
		if evs, err = s.parser.Line(line); err != nil {
			s.res.bad++
			s.r.logf("engine printed a line that is not an event", "engine", s.e.Name(), "ticket", s.job.Ticket.Ref().String(), "line", cut(string(line), 200), "error", err)
			return
		}
	}
	for _, ev := range evs {
		s.event(ev)
	}
}

// event takes one event: a live update, or a session, message, step end
// or result.
func (s *stream) event(ev Event) {
	if l := ev.Live; l != nil {
		switch {
		case l.Tool != nil:
			s.toolStart(*l.Tool)
		case l.Start:
			s.shown = false
			s.live.Start()
		case l.Delta != nil:
			s.live.Delta(*l.Delta)
		case l.End:
			s.live.End()
		}
		return
	}
	s.res.events++
	name, file := s.e.Name(), s.job.SessionFile
	if ev.Session != "" && ev.Session != s.vendor {
		s.vendor, s.total = ev.Session, llm.Usage{}
		_ = saveState(file, name, State{Session: s.vendor})
	}
	if d := ev.Done; d != nil && d.Cumulative {
		// This run's part of the session's total, as a usage entry.
		u := sub(d.Usage, s.total)
		s.total, d.Usage, d.Cumulative = d.Usage, u, false
		_ = saveState(file, name, State{Session: s.vendor, Total: s.total})
		ev.Message = &llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{}, Usage: &u, StopReason: llm.StopEnd}
	}
	if m := ev.Message; m != nil {
		s.message(*m)
	}
	if ev.StepEnd && s.bs != nil && s.bs.terminate.Load() {
		// A board tool ended the run (the agent asked a person, or
		// handed the ticket on): it stops here.
		s.res.asked = true
		s.cancel()
	}
	if ev.Done != nil {
		if s.onDone != nil {
			s.onDone()
		}
		s.res.done = ev.Done
		if s.res.done.Usage.Cost == 0 {
			s.res.done.Usage.Cost = s.in.price.Cost(s.res.done.Usage)
		}
	}
}

// message writes a message into the transcript and counts an assistant
// message's usage against the run's budget.
func (s *stream) message(m llm.Message) {
	if m.Usage != nil && m.Usage.Cost == 0 {
		m.Usage.Cost = s.in.price.Cost(*m.Usage)
	}
	if _, err := s.sess.AppendMessage(m, nil); err != nil {
		s.r.logf("write the transcript", "error", err)
		var me *session.ErrMirror
		if errors.As(err, &me) && s.res.lost == nil {
			// The store holds the transcript: what it did not take is
			// lost to the next worker, so stop.
			s.res.lost = err
			s.cancel()
		}
	}
	s.res.messages++
	s.toolsAfter(m)
	s.res.watchLimits(s.job, m, s.cancel)
	if m.Role != llm.RoleAssistant {
		return
	}
	if m.Usage != nil {
		s.res.usage = s.res.usage.Add(*m.Usage)
	}
	if t := m.Text(); t != "" {
		s.res.text = t
	}
	if s.job.OnUsage != nil {
		s.job.OnUsage(agentjob.UsageOf(s.res.usage))
	}
	u := s.res.usage
	if s.job.Budget.Tokens > 0 && u.Input+u.Output+u.CacheRead+u.CacheWrite >= s.job.Budget.Tokens {
		s.res.tokens = true
		s.cancel()
	}
}
