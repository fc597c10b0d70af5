package storetest

import (
	"sync"
	"time"
)

// start is where every subtest's clock begins: a fixed instant, so the
// timestamps a store writes are the same on every run.
var start = time.Date(2026, time.March, 2, 9, 30, 0, 0, time.UTC)

// clock is the time the store under test reads. It stands still until the
// test advances it, so which of two writes is later is the test's choice,
// never the scheduler's.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

// newClock returns a clock standing at start.
func newClock() *clock { return &clock{now: start} }

// Now returns the clock's time; the store calls it, from any goroutine.
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// tick moves the clock one millisecond on, so the store's next timestamp is
// later than the last one (stores keep milliseconds).
func (c *clock) tick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Millisecond)
}

// advance moves the clock d on.
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
