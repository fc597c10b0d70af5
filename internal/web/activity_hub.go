package web

import (
	"bytes"
	"context"
	"os"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/session"
)

// Each ticket's transcript is followed by one hub, however many pages
// watch it: one goroutine reads what is appended to the transcript and the
// live file beside it, renders each entry and partial once, and hands the
// rendered events to the streams subscribed to it. The hub starts with its
// first subscriber, and the last one to leave stops it and waits for it.

// maxRendered is the most HTML one entry may render to; a larger one is
// shown as an oversized entry.
const maxRendered = 4 << 20

// subBuffer is how many events a stream may fall behind before it is
// dropped (the browser reconnects and continues from its last entry).
const subBuffer = 64

// activityEvent is one rendered event of a ticket's activity.
type activityEvent struct {
	name       string // "entry" or "partial"
	data       string
	epoch      int   // the transcript's generation: a replaced file starts a new one
	start, end int64 // an entry's line; a partial's at, in start
	shown      bool  // a partial shows a message (false: it removes one)
}

// activitySub is one stream's subscription.
type activitySub struct {
	ch chan activityEvent // closed when the stream fell too far behind
}

// activityJoin is what a stream learns when it subscribes: where the hub
// is, so it can read what it missed from the file, and the partial it
// shows now.
type activityJoin struct {
	epoch   int
	offset  int64 // events follow for entries from here on
	partial activityEvent
}

// activityHubs are the running hubs, by transcript path.
type activityHubs struct {
	every  time.Duration
	render func(name string, v any) string

	mu   sync.Mutex
	hubs map[string]*activityHub
}

func newActivityHubs(every time.Duration, render func(name string, v any) string) *activityHubs {
	return &activityHubs{every: every, render: render, hubs: map[string]*activityHub{}}
}

// join subscribes to the transcript at path, starting its hub at offset
// when none runs; refresh (nil: none) brings the file up to date before
// each poll.
func (a *activityHubs) join(path string, offset int64, refresh func(context.Context)) (*activityHub, *activitySub, activityJoin) {
	a.mu.Lock()
	defer a.mu.Unlock()
	h, ok := a.hubs[path]
	if !ok {
		h = newActivityHub(path, offset, a.render)
		h.refresh = refresh
		a.hubs[path] = h
		h.start(a.every)
	}
	sub := &activitySub{ch: make(chan activityEvent, subBuffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[sub] = struct{}{}
	return h, sub, activityJoin{epoch: h.epoch, offset: h.offset, partial: h.partial}
}

// leave ends a subscription; the last subscriber stops the hub and waits
// for its goroutine to end.
func (a *activityHubs) leave(h *activityHub, sub *activitySub) {
	a.mu.Lock()
	h.mu.Lock()
	delete(h.subs, sub)
	last := len(h.subs) == 0
	h.mu.Unlock()
	if last && a.hubs[h.path] == h {
		delete(a.hubs, h.path)
	}
	a.mu.Unlock()
	if last {
		h.stop()
	}
}

// running returns how many hubs run.
func (a *activityHubs) running() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.hubs)
}

// activityHub follows one transcript for its subscribers.
type activityHub struct {
	path    string
	render  func(name string, v any) string
	refresh func(context.Context) // nil: the file is the heartbeat's
	cancel  context.CancelFunc
	done    chan struct{}

	mu      sync.Mutex
	subs    map[*activitySub]struct{}
	epoch   int
	offset  int64         // the end of the last entry published
	partial activityEvent // the last partial published

	// Owned by the goroutine.
	lines        *session.LineReader
	live         *session.LiveReader
	lastVersion  int
	lastAt       int64
	partialShown bool
}

func newActivityHub(path string, offset int64, render func(string, any) string) *activityHub {
	return &activityHub{
		path: path, render: render, subs: map[*activitySub]struct{}{}, offset: offset,
		lines: session.NewLineReader(offset, session.MaxLineBytes), live: newLiveReader(path),
		lastAt: offset, done: make(chan struct{}),
	}
}

func (h *activityHub) start(every time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() {
		defer close(h.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if h.refresh != nil {
				h.refresh(ctx)
			}
			h.poll()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

func (h *activityHub) stop() {
	h.cancel()
	<-h.done
}

// poll reads what was appended to the transcript, then the live file, and
// publishes the events: the transcript first, so a partial shows only once
// every entry before it was published, and goes when its entry arrives.
func (h *activityHub) poll() {
	h.pollTranscript()
	h.live.Poll()
	at := h.lines.Complete()
	if h.live.Version() == h.lastVersion && at == h.lastAt {
		return
	}
	h.lastVersion, h.lastAt = h.live.Version(), at
	v := livePartial(h.live, at)
	shown := len(v.Parts) > 0 || len(v.Calls) > 0
	if shown || h.partialShown {
		h.publish(activityEvent{name: "partial", data: h.render("partial", v), start: at, shown: shown})
	}
	h.partialShown = shown
}

func (h *activityHub) pollTranscript() {
	if h.path == "" {
		return
	}
	f, err := os.Open(h.path)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return
	}
	if fi.Size() < h.lines.Offset() { // the file was replaced
		h.lines = session.NewLineReader(0, session.MaxLineBytes)
		h.mu.Lock()
		h.epoch++
		h.offset = 0
		h.mu.Unlock()
	}
	// Bounded per poll, so one poll stays short; memory is bounded by the
	// line reader whatever is read.
	end := min(fi.Size(), h.lines.Offset()+16*maxActivityRead)
	session.ReadLines(f, h.lines, end, func(l session.Line) {
		if ev, ok := renderLine(h.render, l); ok {
			h.publish(ev)
		} else {
			h.mu.Lock()
			h.offset = l.End
			h.mu.Unlock()
		}
	})
}

// publish hands ev to every subscriber; one whose buffer is full is
// dropped.
func (h *activityHub) publish(ev activityEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ev.epoch = h.epoch
	if ev.name == "entry" {
		h.offset = ev.end
	} else {
		h.partial = ev
	}
	for sub := range h.subs {
		select {
		case sub.ch <- ev:
		default:
			close(sub.ch)
			delete(h.subs, sub)
		}
	}
}

// renderLine renders one transcript line as an entry event; ok is false
// for lines that are not entries.
func renderLine(render func(string, any) string, l session.Line) (activityEvent, bool) {
	v, ok := lineEntry(l)
	if !ok {
		return activityEvent{}, false
	}
	html := render("entry", v)
	if len(html) > maxRendered {
		v = entryView{ID: v.ID, Kind: "oversized", Time: v.Time, What: v.Kind, Size: l.Size(), Offset: l.Start}
		html = render("entry", v)
	}
	return activityEvent{name: "entry", data: html, start: l.Start, end: l.End}, true
}

// catchUp renders the entries of the transcript at path between from and
// to, for a stream that starts behind its hub.
func catchUp(path string, from, to int64, render func(string, any) string, send func(activityEvent) error) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var sendErr error
	session.ReadLines(f, session.NewLineReader(from, session.MaxLineBytes), to, func(l session.Line) {
		if sendErr != nil {
			return
		}
		if ev, ok := renderLine(render, l); ok {
			sendErr = send(ev)
		}
	})
	return sendErr
}

// renderTo executes a template into a string; a failure renders nothing.
func (s *Server) renderTo(name string, v any) string {
	var buf bytes.Buffer
	if err := s.pages[""].ExecuteTemplate(&buf, name, v); err != nil {
		s.log.Warn("render activity", "template", name, "err", err)
		return ""
	}
	return buf.String()
}
