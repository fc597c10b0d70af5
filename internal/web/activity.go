package web

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

// maxActivityRead is the most of a transcript one poll reads.
const maxActivityRead = 1 << 20

// ticketActivity streams a ticket's transcript as the agent writes it: every
// complete entry appended after the byte offset the page was rendered at,
// as a rendered "entry" event. It follows the file with a cursor (its size),
// reading only what was appended. It follows the live file next to it too,
// and sends the message being streamed as a "partial" event that replaces
// the previous one; an empty partial removes it once the complete message
// is in the transcript.
func (s *Server) ticketActivity(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	t, err := s.store.Ticket(r.Context(), ref)
	if err != nil {
		return err
	}
	var offset int64
	if v := r.URL.Query().Get("offset"); v != "" {
		if offset, err = strconv.ParseInt(v, 10, 64); err != nil || offset < 0 {
			return badRequest("offset must be a byte offset: a whole number of 0 or more")
		}
	}
	st, err := newStream(w)
	if err != nil {
		return nil
	}
	tail := &tailer{path: s.transcriptPath(t.ProjectID, t.ID), offset: offset}
	live := &liveFollower{path: livePath(tail.path)}
	// What the page shows of the live file; it starts without a partial.
	lastVersion, lastAt, partialShown := 0, offset, false
	tick := time.NewTicker(s.opts.PollInterval)
	defer tick.Stop()
	lastSend := time.Now()
	var buf bytes.Buffer
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-tick.C:
		}
		for _, line := range tail.lines() {
			v, ok := parseLine(line)
			if !ok {
				continue
			}
			buf.Reset()
			if err := s.pages[""].ExecuteTemplate(&buf, "entry", v); err != nil {
				return nil
			}
			if st.send(0, "entry", buf.String()) != nil {
				return nil
			}
			lastSend = time.Now()
		}
		// The transcript first: a partial shows only once every entry
		// before it has been sent, and goes when its entry arrives.
		live.poll()
		if at := tail.complete(); live.version != lastVersion || at != lastAt {
			lastVersion, lastAt = live.version, at
			v := live.view(at)
			if len(v.Parts) > 0 || partialShown {
				buf.Reset()
				if err := s.pages[""].ExecuteTemplate(&buf, "partial", v); err != nil {
					return nil
				}
				if st.send(0, "partial", buf.String()) != nil {
					return nil
				}
				lastSend = time.Now()
			}
			partialShown = len(v.Parts) > 0
		}
		if time.Since(lastSend) > pingEvery {
			if st.ping() != nil {
				return nil
			}
			lastSend = time.Now()
		}
	}
}

// tailer reads the complete lines appended to a file since its offset.
type tailer struct {
	path    string
	offset  int64
	partial []byte // the start of a line whose end is not written yet
}

// complete returns the offset after the last complete line read.
func (t *tailer) complete() int64 { return t.offset - int64(len(t.partial)) }

func (t *tailer) lines() [][]byte {
	if t.path == "" {
		return nil
	}
	fi, err := os.Stat(t.path)
	if err != nil {
		return nil
	}
	if fi.Size() < t.offset { // the file was replaced
		t.offset, t.partial = 0, nil
	}
	if fi.Size() == t.offset {
		return nil
	}
	f, err := os.Open(t.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.NewSectionReader(f, t.offset, min(fi.Size()-t.offset, maxActivityRead)))
	if err != nil {
		return nil
	}
	t.offset += int64(len(b))
	data := append(t.partial, b...)
	var out [][]byte
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		if line := bytes.TrimSpace(data[:i]); len(line) > 0 {
			out = append(out, line)
		}
		data = data[i+1:]
	}
	t.partial = append([]byte(nil), data...)
	return out
}
