package web

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// liveFileName is the side file, next to a ticket's transcript, where the
// heartbeat writes the assistant message being streamed (written by
// internal/heartbeat/agentrunner; format in docs/web.md).
const liveFileName = "live.jsonl"

// partialShow is how much of each part of a message being streamed the
// page shows: the end of it, so a huge tool call costs the browser little.
const partialShow = 16 << 10

// livePath returns the live file of a transcript ("" for none).
func livePath(transcript string) string {
	if transcript == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(transcript), liveFileName)
}

// liveLine is one line of a live file.
type liveLine struct {
	Type string `json:"type"` // message, delta, done
	At   int64  `json:"at"`
	I    int    `json:"i"`
	Kind string `json:"kind"`
	Name string `json:"name"`
	D    string `json:"d"`
}

// partialPart is one part of a message being streamed.
type partialPart struct {
	Kind string // text, thinking, toolCall
	Name string
	Text []byte // the end of the part, at most 2*partialShow bytes
	Cut  int    // bytes dropped from the front
}

// partialView is what the page shows of a message being streamed.
type partialView struct {
	Parts []partialPartView
}

type partialPartView struct {
	Kind, Name, Text string
	Cut              int
}

// liveFollower follows a live file. A file holds one message and is only
// appended to; a new message arrives as a new file renamed over it, which
// the follower notices by the file's identity and reads from its start.
type liveFollower struct {
	path    string
	file    os.FileInfo // the file being read
	lines   *lineReader // nil until the file is read
	started bool        // the file's first line was a message line
	at      int64
	head    []byte // the message line, as the file starts
	done    bool
	parts   []partialPart
	version int // counts changes, so the page is rendered only when one happened
}

func (l *liveFollower) reset(fi os.FileInfo) {
	if l.file != nil || l.started {
		l.version++
	}
	*l = liveFollower{path: l.path, file: fi, version: l.version, lines: newLineReader(0, maxEntryBytes)}
}

// offset returns how much of the file was read.
func (l *liveFollower) offset() int64 {
	if l.lines == nil {
		return 0
	}
	return l.lines.off
}

// poll reads what was appended since the last poll.
func (l *liveFollower) poll() {
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
	if l.file == nil || !os.SameFile(l.file, fi) || fi.Size() < l.offset() || !l.sameHead(f) {
		l.reset(fi)
	}
	end := min(fi.Size(), l.lines.off+maxActivityRead)
	readLines(f, l.lines, end, func(ln fileLine) {
		if ln.Over {
			l.applyOver(ln)
			return
		}
		l.apply(ln.Data)
	})
}

// sameHead reports whether f starts with the message line read before.
func (l *liveFollower) sameHead(f *os.File) bool {
	if len(l.head) == 0 {
		return true
	}
	b := make([]byte, len(l.head))
	n, _ := f.ReadAt(b, 0)
	return n == len(b) && bytes.Equal(b, l.head)
}

// apply folds one line in; lines that do not parse, and files that do not
// start with a message line, are ignored.
func (l *liveFollower) apply(line []byte) {
	var ln liveLine
	if json.Unmarshal(line, &ln) != nil {
		return
	}
	if !l.started {
		if ln.Type == "message" {
			l.started, l.at, l.head = true, ln.At, append(append([]byte(nil), line...), '\n')
			l.version++
		}
		return
	}
	switch ln.Type {
	case "done":
		l.done = true
	case "delta":
		if ln.I < 0 || ln.I > 1000 {
			return
		}
		p := l.part(ln.I, ln.Kind, ln.Name)
		p.Text = append(p.Text, ln.D...)
		if len(p.Text) > 2*partialShow {
			cut := len(p.Text) - partialShow
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
func (l *liveFollower) applyOver(ln fileLine) {
	var h liveLine
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
	if !l.started || h.Type != "delta" || h.I < 0 || h.I > 1000 {
		return
	}
	p := l.part(h.I, h.Kind, h.Name)
	p.Cut += len(p.Text) + int(ln.Size())
	p.Text = p.Text[:0]
	l.version++
}

// part returns part i, adding it (and those before it) if missing.
func (l *liveFollower) part(i int, kind, name string) *partialPart {
	for len(l.parts) <= i {
		l.parts = append(l.parts, partialPart{})
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

// view returns the message being streamed if it belongs at transcript
// offset at (the end of the complete entries the stream has sent), or an
// empty view: the message is complete (the transcript has moved past it),
// or the stream has not caught up with the entries before it.
func (l *liveFollower) view(at int64) partialView {
	if !l.started || l.done || l.at != at {
		return partialView{}
	}
	var v partialView
	for _, p := range l.parts {
		if p.Kind == "" || len(p.Text) == 0 && p.Name == "" {
			continue
		}
		text := p.Text
		cut := p.Cut
		if len(text) > partialShow {
			n := len(text) - partialShow
			for n < len(text) && !utf8.RuneStart(text[n]) {
				n++
			}
			cut += n
			text = text[n:]
		}
		v.Parts = append(v.Parts, partialPartView{Kind: p.Kind, Name: p.Name, Text: string(text), Cut: cut})
	}
	return v
}
