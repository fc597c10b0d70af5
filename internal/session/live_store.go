package session

import (
	"context"
	"sync"
	"time"
)

// LiveStoreInterval is the most often a LiveWriter writes to its store
// (SetStore): the file's writes in between are sent as one. Sixty agents
// streaming at once then cost a shared database about 200 small writes a
// second, whatever their models send.
const LiveStoreInterval = 300 * time.Millisecond

// liveStoreTimeout bounds one write to the store, so a store that stopped
// answering holds no write, and no Close, for long.
const liveStoreTimeout = 10 * time.Second

// LiveStore keeps a ticket's live file in a store several machines share
// (store.Transcripts.WriteLive for one ticket), so that a `bonsai serve`
// on another machine shows the message being streamed: fresh data starts a
// new message and replaces what was stored, other data is appended to it.
type LiveStore func(ctx context.Context, data []byte, fresh bool) error

// SetStore makes the writer send what it writes to the live file to st
// as well, at most every LiveStoreInterval, on a goroutine of its own: a
// slow store delays no delta and no file write. Close stores an empty
// live file. A failed write is logged once, like the file's, and never
// fails the run; the message's later writes are then skipped until the
// next message. Call it before Start.
func (l *LiveWriter) SetStore(st LiveStore) {
	if st == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.store = &liveMirror{store: st, fail: func(what string, err error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.failLocked(what, err)
	}}
}

// liveMirror batches a LiveWriter's writes for its store.
type liveMirror struct {
	store LiveStore
	fail  func(what string, err error)

	mu     sync.Mutex
	buf    []byte // what the store does not have yet
	fresh  bool   // buf starts a new message
	broken bool   // a write of the current message failed: skip it
	timer  *time.Timer
	last   time.Time // the end of the last write
	wrote  bool      // something was stored: Close empties it
	closed bool

	wmu sync.Mutex // held while writing, so writes keep their order
}

// add queues b, written to the live file (a new file when fresh), for the
// store.
func (m *liveMirror) add(b []byte, fresh bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	if fresh {
		m.buf, m.fresh, m.broken = append([]byte(nil), b...), true, false
	} else {
		m.buf = append(m.buf, b...)
	}
	if m.timer == nil {
		m.timer = time.AfterFunc(max(0, LiveStoreInterval-time.Since(m.last)), m.flush)
	}
}

// flush sends what is queued in one write.
func (m *liveMirror) flush() {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	m.mu.Lock()
	b, fresh := m.buf, m.fresh
	m.buf, m.fresh, m.timer = nil, false, nil
	skip := m.closed || m.broken && !fresh || len(b) == 0
	m.mu.Unlock()
	if skip {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), liveStoreTimeout)
	err := m.store(ctx, b, fresh)
	cancel()
	m.mu.Lock()
	m.last, m.wrote = time.Now(), true
	if err != nil && !m.fresh {
		// Appending the rest to what the store holds would mix messages.
		m.broken = true
	}
	m.mu.Unlock()
	if err != nil {
		m.fail("write the live file to the store", err)
	}
}

// close stops the writes and, when anything was stored, stores an empty
// live file: the run is over, and the message is in the transcript.
func (m *liveMirror) close() {
	m.mu.Lock()
	m.closed = true
	if m.timer != nil {
		m.timer.Stop()
	}
	m.mu.Unlock()
	m.wmu.Lock() // a write in flight finishes first
	defer m.wmu.Unlock()
	m.mu.Lock()
	wrote := m.wrote
	m.mu.Unlock()
	if !wrote {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), liveStoreTimeout)
	defer cancel()
	if err := m.store(ctx, nil, true); err != nil {
		m.fail("clear the live file in the store", err)
	}
}
