package agentrunner

import (
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// Live feeds a run's agent events to the live file beside the ticket's
// transcript (session.LiveWriter), so that `bonsai serve` can show the
// assistant message being streamed before it is complete, and then the
// tool calls it made while they run: each with its start time and the
// output it printed so far. Live is safe for concurrent use.
type Live struct {
	w   *session.LiveWriter
	now func() time.Time

	mu    sync.Mutex
	calls []*liveCall // the tool calls being run, in start order; nil: none runs
	shown bool        // the live file holds calls
	timer *time.Timer // shows calls that run longer than liveToolDelay
	gen   int         // counts the groups of calls, so a late timer shows nothing
}

// liveToolDelay is how long tool calls run before the live file shows
// them: most end sooner, and writing them would only churn the file (and
// a shared board's store) for a page that cannot show them in time.
const liveToolDelay = 500 * time.Millisecond

// liveCall is a tool call being run, as the live file holds it.
type liveCall struct {
	id, name string
	args     []byte
	since    time.Time
	// sent is the output the live file holds since its message line: the
	// tool's latest partial result, which the next one usually extends.
	sent string
}

// liveOutputTail is the most of a call's output a new live file starts
// with: the page shows no more than the end of it.
const liveOutputTail = 16 << 10

// NewLive returns a Live writing the live file of the transcript at
// transcript; logger (nil: none) receives the first failure. Without a
// transcript it writes nothing.
func NewLive(transcript string, logger *slog.Logger) *Live {
	return &Live{w: session.NewLiveWriter(transcript, logger), now: time.Now}
}

// SetStore sends the live file to st as well (nil: the file alone), for
// a board several machines share; see session.LiveWriter.SetStore.
func (l *Live) SetStore(st session.LiveStore) { l.w.SetStore(st) }

// Path returns the live file's path.
func (l *Live) Path() string { return l.w.Path() }

// Event folds one agent event into the live file: an assistant
// message_start starts a message, message_update deltas are batched and
// message_end ends it (the complete message is then in the transcript).
// tool_execution_start starts a live file of the calls being run (or adds
// the call to it), tool_execution_update adds what the call printed, and
// the first tool_execution_end ends it: the loop records the results of
// the calls it ran together only once all of them ended.
func (l *Live) Event(e agent.Event) {
	switch e.Type {
	case agent.EventMessageStart:
		// The loop has fsynced every earlier entry before it starts a
		// message.
		if e.Message != nil && e.Message.Role == llm.RoleAssistant {
			l.endTools()
			l.w.Start()
		}
	case agent.EventMessageUpdate:
		if e.Delta != nil {
			l.w.Delta(*e.Delta)
		}
	case agent.EventMessageEnd:
		if e.Message != nil && e.Message.Role == llm.RoleAssistant {
			l.w.End()
		}
	case agent.EventToolExecutionStart:
		l.toolStart(e)
	case agent.EventToolExecutionUpdate:
		if e.ToolResult != nil {
			l.toolOutput(e.ToolCallID, e.ToolResult.Text())
		}
	case agent.EventToolExecutionEnd:
		l.endTools()
	}
}

// toolStart adds a call to the live file of running calls, starting one
// when none is open; the assistant message that made the call is in the
// transcript already.
func (l *Live) toolStart(e agent.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := &liveCall{id: e.ToolCallID, name: e.ToolName, args: e.Args, since: l.now()}
	if l.shown {
		l.w.ToolStart(2*len(l.calls), c.name, c.args, c.since)
	}
	if l.calls == nil {
		l.calls = []*liveCall{}
		gen := l.gen
		l.timer = time.AfterFunc(liveToolDelay, func() { l.show(gen) })
	}
	l.calls = append(l.calls, c)
}

// show writes the calls being run to a new live file, unless the group
// gen of calls ended.
func (l *Live) show(gen int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls == nil || l.gen != gen || l.shown {
		return
	}
	l.shown = true
	l.restartLocked()
}

// toolOutput writes a call's latest partial result: what it adds to the
// last one, or, when the tool's window moved on (its output is longer
// than the tool keeps), a new live file with the end of every call's
// output.
func (l *Live) toolOutput(id, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, c := range l.calls {
		if c.id != id {
			continue
		}
		switch {
		case !l.shown:
		case strings.HasPrefix(text, c.sent):
			l.w.ToolOutput(2*i+1, text[len(c.sent):])
		default:
			defer l.restartLocked()
		}
		c.sent = text
		return
	}
}

// restartLocked writes the running calls to a new live file.
func (l *Live) restartLocked() {
	l.w.Start()
	for i, c := range l.calls {
		l.w.ToolStart(2*i, c.name, c.args, c.since)
		l.w.ToolOutput(2*i+1, tail(c.sent, liveOutputTail))
	}
}

// endTools ends the live file of running calls, if one is open.
func (l *Live) endTools() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls == nil {
		return
	}
	l.timer.Stop()
	if l.shown {
		l.w.End()
	}
	l.calls, l.shown, l.timer = nil, false, nil
	l.gen++
}

// tail is the end of s, at most n bytes, cut at a line start when one is
// near.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < 1024 {
		return s[i+1:]
	}
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}

// Close stops writing and removes the live file: the run is over, and
// everything the file held is in the transcript.
func (l *Live) Close() {
	l.mu.Lock()
	if l.timer != nil {
		l.timer.Stop()
	}
	l.calls, l.shown, l.timer = nil, false, nil
	l.gen++
	l.mu.Unlock()
	l.w.Close()
}
