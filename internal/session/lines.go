package session

import (
	"bytes"
	"io"
)

// A LineReader splits a session file (a transcript or a live file) into
// lines as it grows, so that no buffer grows with the file: a line longer
// than the reader's limit is never held whole. Only its first
// LineHeadBytes (enough for an entry's type, id, time and role) and its
// size are kept.
const (
	// MaxLineBytes is the limit the web UI reads session files with.
	MaxLineBytes = 1 << 20
	// LineHeadBytes is how much of an oversized line is kept.
	LineHeadBytes = 1 << 10
	// readChunk is the size of one read from the file.
	readChunk = 64 << 10
)

// Line is one complete line of a file.
type Line struct {
	Start, End int64  // the offset of its first byte, and the offset after its newline
	Data       []byte // the line without its newline; valid only during the callback; nil when Over
	Head       []byte // the first LineHeadBytes of an oversized line
	Over       bool   // the line is longer than the reader's limit
}

// Size is the line's length in bytes, without its newline.
func (l Line) Size() int64 { return l.End - l.Start - 1 }

// LineReader splits bytes into lines as they arrive, holding at most max
// bytes of a line whose end has not arrived yet.
type LineReader struct {
	max   int
	off   int64  // the offset of the next byte to arrive
	start int64  // the offset of the line not yet complete
	cur   []byte // that line so far, or its head when over
	over  bool
}

// NewLineReader returns a reader starting at offset at of a file, holding
// at most max bytes of a line.
func NewLineReader(at int64, max int) *LineReader {
	return &LineReader{max: max, off: at, start: at}
}

// Offset returns the offset of the next byte the reader expects.
func (r *LineReader) Offset() int64 { return r.off }

// Complete returns the offset after the last complete line.
func (r *LineReader) Complete() int64 { return r.start }

// Held returns how many bytes of the unfinished line the reader holds.
func (r *LineReader) Held() int { return cap(r.cur) }

// Feed splits b, the bytes at the reader's offset, and calls fn for every
// line it completes.
func (r *LineReader) Feed(b []byte, fn func(Line)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		r.add(chunk)
		r.off += int64(len(chunk))
		b = b[len(chunk):]
		if i < 0 {
			return
		}
		b = b[1:]
		r.off++
		ln := Line{Start: r.start, End: r.off, Over: r.over}
		if r.over {
			ln.Head = r.cur
		} else {
			ln.Data = r.cur
		}
		fn(ln)
		r.start, r.cur, r.over = r.off, r.cur[:0], false
		if cap(r.cur) > readChunk { // a big line's buffer is not kept for the next
			r.cur = nil
		}
	}
}

// add appends part of the unfinished line, keeping only its head once
// the line is over the limit.
func (r *LineReader) add(p []byte) {
	if r.over {
		return
	}
	if need := len(r.cur) + len(p); need <= r.max {
		if need > cap(r.cur) { // grow, but never past the limit
			b := make([]byte, len(r.cur), min(max(2*cap(r.cur), need), r.max))
			copy(b, r.cur)
			r.cur = b
		}
		r.cur = append(r.cur, p...)
		return
	}
	r.over = true
	if len(r.cur) < LineHeadBytes {
		r.cur = append(r.cur, p[:min(len(p), LineHeadBytes-len(r.cur))]...)
	}
	r.cur = append([]byte(nil), r.cur[:min(len(r.cur), LineHeadBytes)]...)
}

// ReadLines reads f from the reader's offset up to end in chunks and feeds
// them to the reader.
func ReadLines(f io.ReaderAt, r *LineReader, end int64, fn func(Line)) error {
	if end <= r.off {
		return nil
	}
	buf := make([]byte, min(readChunk, end-r.off))
	for r.off < end {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), end-r.off)], r.off)
		r.Feed(buf[:n], fn)
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
	return nil
}
