package session

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// LiveInterval is the most often the live file is written while a message
// streams: deltas arriving in between are batched into one write.
const LiveInterval = 100 * time.Millisecond

// pendingLine is a line waiting for the next write; the deltas batched
// into it grow d, not the string, so a batch costs linear time.
type pendingLine struct {
	LiveLine
	d []byte
}

// LiveWriter writes the assistant message being streamed to the live file
// beside a transcript. Each message gets a new file (written under a
// temporary name and renamed into place), which is then only appended to,
// in whole lines, so a reader never sees a file rewritten under it. A
// message's file is first written LiveInterval after its first content,
// and a message that came whole by then gets none: it would show nothing
// (on a busy beat those files were a tenth of its own CPU). Writes
// happen on a timer goroutine, at most every LiveInterval and once at the
// message's end; Start, Delta and End never wait for the disk. A failed
// write is logged once and never fails the run. A LiveWriter is safe for
// concurrent use.
type LiveWriter struct {
	path, transcript string
	log              *slog.Logger

	mu      sync.Mutex
	pending []pendingLine // lines not written yet
	fresh   bool          // pending starts a new message: the next write starts a new file
	on      bool          // a message is streaming and being written
	timer   *time.Timer
	last    time.Time // the last write
	closed  bool
	logged  bool
	store   *liveMirror // nil: the file alone (SetStore)

	wmu    sync.Mutex // held while writing; f and writes are touched only under it
	f      *os.File
	writes int
}

// NewLiveWriter returns a LiveWriter writing LivePath(transcript); logger
// (nil: none) receives the first failure. Without a transcript it writes
// nothing.
func NewLiveWriter(transcript string, logger *slog.Logger) *LiveWriter {
	if transcript == "" {
		return &LiveWriter{closed: true}
	}
	return &LiveWriter{path: LivePath(transcript), transcript: transcript, log: logger}
}

// Path returns the live file's path.
func (l *LiveWriter) Path() string { return l.path }

// Start starts a new message, in a new file, written LiveInterval after
// the message's first content. Every earlier entry must be in the transcript: its size is
// where this message will be appended.
func (l *LiveWriter) Start() {
	fi, err := os.Stat(l.transcript)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending, l.fresh, l.on = nil, false, false
	if l.closed {
		return
	}
	if err != nil {
		l.failLocked("stat the transcript", err)
		return
	}
	// Its message line alone shows nothing: it is written with the
	// message's first content (flush).
	l.pending, l.fresh, l.on = []pendingLine{{LiveLine: LiveLine{Type: LiveMessage, At: fi.Size()}}}, true, true
}

// Delta batches one stream event of the message: consecutive deltas of a
// part become one line. Events that carry no content are ignored.
func (l *LiveWriter) Delta(ev llm.Event) {
	line := LiveLine{Type: LiveDelta, I: ev.Index}
	switch ev.Type {
	case llm.EventTextDelta:
		line.Kind = string(llm.PartText)
	case llm.EventThinkingDelta:
		line.Kind = string(llm.PartThinking)
	case llm.EventToolCallDelta:
		line.Kind = string(llm.PartToolCall)
	case llm.EventToolCallStart:
		// The name shows before the arguments stream.
		line.Kind = string(llm.PartToolCall)
		if ev.Part != nil {
			line.Name = ev.Part.Name
		}
		if line.Name == "" {
			return
		}
	default:
		return
	}
	if ev.Delta == "" && line.Name == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return
	}
	if n := len(l.pending); n > 0 && line.Name == "" {
		if p := &l.pending[n-1]; p.Type == LiveDelta && p.I == line.I && p.Kind == line.Kind {
			p.d = append(p.d, ev.Delta...)
			return
		}
	}
	l.pending = append(l.pending, pendingLine{LiveLine: line, d: []byte(ev.Delta)})
	l.scheduleLocked(false)
}

// ToolStart adds a tool call being run to the live file as part i: its
// name, the time it started and its arguments (the end of them, when
// longer than maxLiveArgs). Its output goes to part i+1 (ToolOutput). A
// live file of running calls is started with Start, like a message, and
// ended with End once their results are in the transcript.
func (l *LiveWriter) ToolStart(i int, name string, args []byte, since time.Time) {
	if len(args) > maxLiveArgs {
		args = args[:maxLiveArgs]
	}
	l.add(pendingLine{LiveLine: LiveLine{Type: LiveDelta, I: i, Kind: LiveRun, Name: name, Since: since.UnixMilli()},
		d: append([]byte(nil), args...)})
}

// ToolOutput appends d to the output of the tool call of part i-1.
func (l *LiveWriter) ToolOutput(i int, d string) {
	if d == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return
	}
	if n := len(l.pending); n > 0 {
		if p := &l.pending[n-1]; p.Type == LiveDelta && p.I == i && p.Kind == LiveOutput {
			p.d = append(p.d, d...)
			return
		}
	}
	l.pending = append(l.pending, pendingLine{LiveLine: LiveLine{Type: LiveDelta, I: i, Kind: LiveOutput}, d: []byte(d)})
	l.scheduleLocked(false)
}

// maxLiveArgs is the most of a running tool call's arguments the live
// file holds: the call itself is in the transcript already.
const maxLiveArgs = 8 << 10

// add queues one line of the message being written.
func (l *LiveWriter) add(p pendingLine) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return
	}
	l.pending = append(l.pending, p)
	l.scheduleLocked(false)
}

// End ends the message (the complete message is then in the transcript)
// and writes what is pending at once.
func (l *LiveWriter) End() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return
	}
	l.pending, l.on = append(l.pending, pendingLine{LiveLine: LiveLine{Type: LiveDone}}), false
	l.scheduleLocked(true)
}

// scheduleLocked arranges a write LiveInterval after the last one (after
// now for a new message's first), or at once when now is set.
func (l *LiveWriter) scheduleLocked(now bool) {
	if l.closed {
		return
	}
	d := LiveInterval - time.Since(l.last)
	if l.fresh {
		// A new message's first write waits a whole interval, so that
		// one that streams whole within it gets no file (flush).
		d = LiveInterval
	}
	if now || d < 0 {
		d = 0
	}
	if l.timer == nil {
		l.timer = time.AfterFunc(d, l.flush)
	} else if now {
		l.timer.Reset(0)
	}
}

// flush writes the pending lines: a new message's into a new file renamed
// into place, a streaming message's appended in one write. A new message
// that is complete already is not written (see the comment inside).
func (l *LiveWriter) flush() {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	lines, fresh := l.pending, l.fresh
	l.pending, l.fresh, l.timer, l.last = nil, false, nil, time.Now()
	closed, store := l.closed, l.store
	l.mu.Unlock()
	if closed || len(lines) == 0 {
		return
	}
	if fresh && lines[len(lines)-1].Type == LiveDone {
		// The whole message came within one write: a file that starts
		// done shows nothing (the transcript has the message), so none
		// is made. The last message's file, done too, stays until the
		// next one replaces it.
		if l.f != nil {
			l.f.Close()
			l.f = nil
		}
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, p := range lines {
		p.D = string(p.d)
		_ = enc.Encode(p.LiveLine) // plain strings and numbers: cannot fail
	}
	l.writes++
	if store != nil {
		store.add(buf.Bytes(), fresh)
	}
	if err := l.write(buf.Bytes(), fresh); err != nil {
		l.mu.Lock()
		l.failLocked("write the live file", err)
		l.mu.Unlock()
	}
	if lines[len(lines)-1].Type == LiveDone && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

func (l *LiveWriter) write(b []byte, fresh bool) error {
	if fresh {
		if l.f != nil {
			l.f.Close()
			l.f = nil
		}
		tmp := l.path + ".tmp"
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			f.Close()
			return err
		}
		if err := os.Rename(tmp, l.path); err != nil {
			f.Close()
			return err
		}
		l.f = f
		return nil
	}
	if l.f == nil { // the message's first write failed
		return nil
	}
	_, err := l.f.Write(b)
	return err
}

func (l *LiveWriter) failLocked(what string, err error) {
	if l.logged || l.log == nil {
		return
	}
	l.logged = true
	l.log.Warn("live activity: "+what+"; the page shows messages when complete", "path", l.path, "error", err)
}

// Close stops writing and removes the live file (and empties the store's,
// SetStore): the run is over, and everything the file held is in the
// transcript.
func (l *LiveWriter) Close() {
	l.mu.Lock()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	store := l.store
	l.mu.Unlock()
	l.wmu.Lock() // a write in flight finishes first
	defer l.wmu.Unlock()
	if store != nil {
		store.close()
	}
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
	if l.path == "" {
		return
	}
	os.Remove(l.path + ".tmp")
	if err := os.Remove(l.path); err != nil && !os.IsNotExist(err) {
		l.mu.Lock()
		l.failLocked("remove the live file", err)
		l.mu.Unlock()
	}
}
