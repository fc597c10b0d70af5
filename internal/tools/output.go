package tools

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"
)

// spillCap bounds the output kept in memory for the full-output file; past
// it only the tail is kept.
const spillCap = 16 << 20

// updateEvery throttles partial results sent while a command runs.
const updateEvery = 100 * time.Millisecond

// output collects a command's merged output as it arrives.
type output struct {
	mu      sync.Mutex
	head    []byte // the first spillCap bytes
	tailBuf []byte // the last 2*maxBytes bytes once head is full
	total   int64
	lines   int // newlines seen
	last    time.Time
	update  func(text string)
	lim     limits // zero means outputLimits
}

func (o *output) Write(p []byte) (int, error) {
	n := len(p)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.total += int64(n)
	o.lines += bytes.Count(p, []byte("\n"))
	if room := spillCap - len(o.head); room > 0 {
		o.head = append(o.head, p[:min(room, len(p))]...)
		p = p[min(room, len(p)):]
	}
	if len(p) > 0 {
		o.tailBuf = append(o.tailBuf, p...)
		if over := len(o.tailBuf) - 2*o.limits().bytes; over > 0 {
			o.tailBuf = append(o.tailBuf[:0], o.tailBuf[over:]...)
		}
	}
	if o.update != nil && time.Since(o.last) >= updateEvery {
		o.last = time.Now()
		o.update(o.visible().text)
	}
	return n, nil
}

func (o *output) limits() limits {
	if o.lim == (limits{}) {
		return outputLimits
	}
	return o.lim
}

// overflowed reports whether output past spillCap was dropped from head.
func (o *output) overflowed() bool { return o.total > int64(len(o.head)) }

// full returns all output, or its head and tail with a marker between
// when it was too large to keep.
func (o *output) full() string {
	if !o.overflowed() {
		return string(o.head)
	}
	omitted := o.total - int64(len(o.head)) - int64(len(o.tailBuf))
	return fmt.Sprintf("%s\n[... %d bytes omitted ...]\n%s", o.head, omitted, o.tailBuf)
}

// view is the truncated tail of the output with its position.
type view struct {
	text      string
	first     int // 1-based first line shown
	last      int // 1-based last line shown
	total     int
	truncated bool
	partial   bool
}

// visible returns the last 2000 lines / 50 KB of the output (or its limits).
func (o *output) visible() view {
	lim := o.limits()
	b := o.head
	if o.overflowed() {
		b = o.tailBuf
	}
	total := o.lines
	if o.total > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		total++
	}
	// Only the end can be shown: look at no more than twice the byte limit,
	// so a running command's updates cost the same however long it ran.
	cut := o.overflowed()
	if w := 2 * lim.bytes; len(b) > w {
		b, cut = b[len(b)-w:], true
	}
	lines := splitLines(string(b))
	tl := tailOf(lines, lim)
	if cut && tl.first == 0 && !tl.partial && len(lines) > 1 {
		// The first line of the window may be cut; drop it.
		tl.first = 1
	}
	v := view{total: total, last: total}
	if tl.partial {
		v.text, v.first, v.partial, v.truncated = tl.last, total, true, true
		return v
	}
	v.text = strings.Join(lines[tl.first:], "\n")
	v.first = total - (len(lines) - tl.first) + 1
	v.truncated = v.first > 1
	return v
}
