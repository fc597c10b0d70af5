package session

import (
	"bytes"
	"encoding/json"
	"os"
	"unicode/utf8"
)

// liveReadPerPoll is the most of a live file one Poll reads.
const liveReadPerPoll = 1 << 20

// LivePart is one part of a message being streamed, as far as a
// LiveReader keeps it.
type LivePart struct {
	Kind string // text, thinking, toolCall
	Name string // a tool call's name
	Text []byte // the end of the part: at least the reader's tail, at most twice it
	Cut  int    // bytes dropped from the front
	// Since is when a running tool call started, in Unix milliseconds
	// (LiveRun parts).
	Since int64
}

// LiveReader follows a live file. A file holds one message and is only
// appended to; a new message arrives as a new file renamed over it, which
// the reader notices by the file's identity and reads from its start. It
// reads only complete lines, through a LineReader of MaxLineBytes, and
// keeps only the end of each part, so its memory is bounded whatever the
// file holds. A LiveReader is used by one goroutine.
type LiveReader struct {
	path    string
	tail    int
	file    os.FileInfo // the file being read
	lines   *LineReader // nil until the file is read
	started bool        // the file's first line was a message line
	at      int64
	head    []byte // the message line, as the file starts
	done    bool
	parts   []LivePart
	version int // counts changes, so a page is rendered only when one happened
}

// NewLiveReader returns a reader of the live file at path ("" for none)
// keeping at least the last tail bytes of each part.
func NewLiveReader(path string, tail int) *LiveReader {
	return &LiveReader{path: path, tail: tail}
}

// Version counts the changes the reader has seen: it changes whenever
// what Streaming returns may have.
func (l *LiveReader) Version() int { return l.version }

// Offset returns how much of the current file was read.
func (l *LiveReader) Offset() int64 {
	if l.lines == nil {
		return 0
	}
	return l.lines.Offset()
}

// Streaming returns the message being streamed: the transcript offset its
// complete entry will be appended at, and its parts (read-only, valid
// until the next Poll); ok is false when no file starts with a message
// line, or its message is done.
func (l *LiveReader) Streaming() (at int64, parts []LivePart, ok bool) {
	if !l.started || l.done {
		return 0, nil, false
	}
	return l.at, l.parts, true
}

func (l *LiveReader) reset(fi os.FileInfo) {
	if l.file != nil || l.started {
		l.version++
	}
	*l = LiveReader{path: l.path, tail: l.tail, file: fi, version: l.version, lines: NewLineReader(0, MaxLineBytes)}
}

// Poll reads what was appended since the last poll.
func (l *LiveReader) Poll() {
	if l.path == "" {
		return
	}
	f, err := os.Open(l.path)
	if err != nil { // no message streams
		if l.file != nil {
			l.reset(nil)
		}
		return
	}
	defer f.Close()
	// The identity of the opened file, not of the path: a rename between
	// a stat of the path and the open cannot mix two messages.
	fi, err := f.Stat()
	if err != nil {
		return
	}
	// A file's first line names its message: checking it too catches a
	// new file that reused the inode of one read before.
	if l.file == nil || !os.SameFile(l.file, fi) || fi.Size() < l.Offset() || !l.sameHead(f) {
		l.reset(fi)
	}
	end := min(fi.Size(), l.lines.Offset()+liveReadPerPoll)
	ReadLines(f, l.lines, end, func(ln Line) {
		if ln.Over {
			l.applyOver(ln)
			return
		}
		l.apply(ln.Data)
	})
}

// sameHead reports whether f starts with the message line read before.
func (l *LiveReader) sameHead(f *os.File) bool {
	if len(l.head) == 0 {
		return true
	}
	b := make([]byte, len(l.head))
	n, _ := f.ReadAt(b, 0)
	return n == len(b) && bytes.Equal(b, l.head)
}

// apply folds one line in; lines that do not parse, and files that do not
// start with a message line, are ignored.
func (l *LiveReader) apply(line []byte) {
	var ln LiveLine
	if json.Unmarshal(line, &ln) != nil {
		return
	}
	if !l.started {
		if ln.Type == LiveMessage {
			l.started, l.at, l.head = true, ln.At, append(append([]byte(nil), line...), '\n')
			l.version++
		}
		return
	}
	switch ln.Type {
	case LiveDone:
		l.done = true
	case LiveDelta:
		if ln.I < 0 || ln.I > maxLivePart {
			return
		}
		p := l.part(ln.I, ln.Kind, ln.Name)
		if ln.Since != 0 {
			p.Since = ln.Since
		}
		p.Text = append(p.Text, ln.D...)
		if len(p.Text) > 2*l.tail {
			cut := len(p.Text) - l.tail
			for cut < len(p.Text) && !utf8.RuneStart(p.Text[cut]) {
				cut++
			}
			p.Cut += cut
			p.Text = append(p.Text[:0], p.Text[cut:]...)
		}
	default:
		return
	}
	l.version++
}

// applyOver folds in a line too long to read whole: a delta's text is
// dropped (the part shows "…" where it was) and the rest of the part
// continues from there; other lines are ignored.
func (l *LiveReader) applyOver(ln Line) {
	var h LiveLine
	d := json.NewDecoder(bytes.NewReader(ln.Head))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for d.More() {
		k, err := d.Token()
		if err != nil || k == "d" {
			break
		}
		switch k {
		case "type":
			err = d.Decode(&h.Type)
		case "i":
			err = d.Decode(&h.I)
		case "kind":
			err = d.Decode(&h.Kind)
		case "name":
			err = d.Decode(&h.Name)
		default:
			var skip json.RawMessage
			err = d.Decode(&skip)
		}
		if err != nil {
			break
		}
	}
	if !l.started || h.Type != LiveDelta || h.I < 0 || h.I > maxLivePart {
		return
	}
	p := l.part(h.I, h.Kind, h.Name)
	p.Cut += len(p.Text) + int(ln.Size())
	p.Text = p.Text[:0]
	l.version++
}

// part returns part i, adding it (and those before it) if missing.
func (l *LiveReader) part(i int, kind, name string) *LivePart {
	for len(l.parts) <= i {
		l.parts = append(l.parts, LivePart{})
	}
	p := &l.parts[i]
	if p.Kind == "" {
		p.Kind = kind
	}
	if name != "" {
		p.Name = name
	}
	return p
}
