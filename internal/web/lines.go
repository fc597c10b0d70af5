package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Every line the web UI reads from a transcript or a live file goes
// through a lineReader, so that no buffer grows with the file: a line
// longer than maxEntryBytes is never held whole. Only its first
// entryHeadBytes (enough for the entry's type, id, time and role) and its
// size are kept, and the pages show a placeholder for it.
const (
	maxEntryBytes  = 1 << 20
	entryHeadBytes = 1 << 10
	readChunk      = 64 << 10
)

// fileLine is one complete line of a file.
type fileLine struct {
	Start, End int64  // the offset of its first byte, and the offset after its newline
	Data       []byte // the line without its newline; valid only during the callback; nil when Over
	Head       []byte // the first entryHeadBytes of an oversized line
	Over       bool   // the line is longer than the reader's limit
}

// Size is the line's length in bytes, without its newline.
func (l fileLine) Size() int64 { return l.End - l.Start - 1 }

// lineReader splits bytes into lines as they arrive, holding at most max
// bytes of a line whose end has not arrived yet.
type lineReader struct {
	max   int
	off   int64  // the offset of the next byte to arrive
	start int64  // the offset of the line not yet complete
	cur   []byte // that line so far, or its head when over
	over  bool
}

func newLineReader(at int64, max int) *lineReader {
	return &lineReader{max: max, off: at, start: at}
}

// complete returns the offset after the last complete line.
func (r *lineReader) complete() int64 { return r.start }

// held returns how many bytes of the unfinished line the reader holds.
func (r *lineReader) held() int { return cap(r.cur) }

// feed splits b, the bytes at the reader's offset, and calls fn for every
// line it completes.
func (r *lineReader) feed(b []byte, fn func(fileLine)) {
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
		ln := fileLine{Start: r.start, End: r.off, Over: r.over}
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
func (r *lineReader) add(p []byte) {
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
	if len(r.cur) < entryHeadBytes {
		r.cur = append(r.cur, p[:min(len(p), entryHeadBytes-len(r.cur))]...)
	}
	r.cur = append([]byte(nil), r.cur[:min(len(r.cur), entryHeadBytes)]...)
}

// readLines reads f from the reader's offset up to end in chunks and feeds
// them to the reader.
func readLines(f io.ReaderAt, r *lineReader, end int64, fn func(fileLine)) error {
	if end <= r.off {
		return nil
	}
	buf := make([]byte, min(readChunk, end-r.off))
	for r.off < end {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), end-r.off)], r.off)
		r.feed(buf[:n], fn)
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
	return nil
}

// entryHead is what the start of an oversized transcript line tells.
type entryHead struct {
	Type, ID, Timestamp, Role string
}

// parseHead reads the fields of an entry that come before its message's
// content from the start of its line; fields past the cut stay empty.
func parseHead(head []byte) entryHead {
	var h entryHead
	d := json.NewDecoder(bytes.NewReader(head))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return h
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return h
		}
		key, _ := k.(string)
		if key == "message" {
			if t, err := d.Token(); err != nil || t != json.Delim('{') {
				return h
			}
			if k, err := d.Token(); err == nil && k == "role" {
				if v, err := d.Token(); err == nil {
					h.Role, _ = v.(string)
				}
			}
			return h
		}
		var v json.RawMessage
		if d.Decode(&v) != nil {
			return h
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			continue
		}
		switch key {
		case "type":
			h.Type = s
		case "id":
			h.ID = s
		case "timestamp":
			h.Timestamp = s
		}
	}
	return h
}

// megabytes formats a size for people: "19.6 MB".
func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
