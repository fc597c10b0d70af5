package llm

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// SSEReader reads a text/event-stream body event by event, for the
// adapters' streaming responses. Lines may be of any length; an event is
// dispatched at a blank line, and an event left unfinished when the body
// ends is dropped (the adapters then see a stream without its end).
type SSEReader struct {
	r     *bufio.Reader
	event []byte
	data  []byte
	line  []byte
	err   error
}

// NewSSEReader returns a reader of the events in r.
func NewSSEReader(r io.Reader) *SSEReader {
	return &SSEReader{r: bufio.NewReaderSize(r, 32<<10)}
}

// Next advances to the next event and reports whether there is one. After
// false, Err returns the read error, if any.
func (s *SSEReader) Next() bool {
	if s.err != nil {
		return false
	}
	s.event, s.data = s.event[:0], s.data[:0]
	hasData := false
	for {
		line, err := s.readLine()
		if err != nil {
			if err != io.EOF {
				s.err = err
			}
			return false
		}
		if len(line) == 0 {
			if len(s.event) == 0 && !hasData {
				continue
			}
			return true
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(name) {
		case "event":
			s.event = append(s.event[:0], value...)
		case "data":
			if hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			hasData = true
		}
		// Comments (": …"), id and retry fields are not used.
	}
}

// Event returns the current event's name ("" when it has none). It is
// valid until the next call to Next.
func (s *SSEReader) Event() []byte { return s.event }

// Data returns the current event's data lines joined by newlines. It is
// valid until the next call to Next.
func (s *SSEReader) Data() []byte { return s.data }

// Err returns the error that ended the stream, or nil at its end.
func (s *SSEReader) Err() error { return s.err }

// readLine returns the next line without its line ending.
func (s *SSEReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.line = append(s.line[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = s.r.ReadSlice('\n')
			s.line = append(s.line, line...)
		}
		line = s.line
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), nil
}
