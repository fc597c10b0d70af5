package session

import (
	"bytes"
	"fmt"
	"io"
)

// A Mirror keeps a copy of a session file elsewhere: on a board several
// machines share, the store, where any machine resumes the ticket from.
// A File with a mirror hands it every line it writes (the header, every
// entry, the repairs of Open), in order and with the exact bytes it
// writes, before writing the line to the file: a line counts as written
// only once the mirror took it. When the mirror refuses a line, nothing
// of it reaches the file and every later write fails too, so the copy
// never has a gap; the file is then a cache the caller rebuilds from the
// mirror before opening it again.
type Mirror interface {
	// MirrorLine stores line number n of the file (the first line, the
	// header, is 0), without its newline.
	MirrorLine(n int64, line []byte) error
}

// MirrorFunc adapts a function to a Mirror.
type MirrorFunc func(n int64, line []byte) error

// MirrorLine implements Mirror.
func (f MirrorFunc) MirrorLine(n int64, line []byte) error { return f(n, line) }

// ErrMirror wraps the error of a line the mirror refused.
type ErrMirror struct {
	Line int64 // the line's number
	Err  error // the mirror's error
}

func (e *ErrMirror) Error() string {
	return fmt.Sprintf("write session: copy line %d to the mirror: %v", e.Line, e.Err)
}

// Unwrap returns the mirror's error.
func (e *ErrMirror) Unwrap() error { return e.Err }

// lineCounter counts the newlines read through it.
type lineCounter struct {
	r     io.Reader
	lines int64
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.lines += int64(bytes.Count(p[:n], []byte{'\n'}))
	return n, err
}
