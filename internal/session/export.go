package session

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
)

// LineSource is where a board keeps transcript lines (the store's
// Transcripts): each line of ticketID's transcript from line from on.
type LineSource interface {
	TranscriptLines(ctx context.Context, ticketID string, from int64, fn func(n int64, line []byte) error) error
}

// WriteTranscript writes a ticket's transcript to w, one JSON value a
// line: the complete lines of the session file at path when path is not
// "" and the file has any, else the lines stored stores for ticketID;
// false when there are none.
func WriteTranscript(ctx context.Context, w io.Writer, path string, stored LineSource, ticketID string) (bool, error) {
	if path != "" {
		if found, err := copyLines(w, path); err != nil || found {
			return found, err
		}
	}
	return writeStoredLines(ctx, w, stored, ticketID)
}

// copyLines copies the complete lines of the file at path to w (a line
// being written, or torn by a crash, is left out); false when there is
// no file, or no line in it.
func copyLines(w io.Writer, path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	wrote := false
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it whole before deciding.
			rest, err2 := r.ReadBytes('\n')
			line, err = append(append([]byte(nil), line...), rest...), err2
		}
		if err == io.EOF {
			return wrote, nil
		}
		if err != nil {
			return wrote, err
		}
		if _, err := w.Write(line); err != nil {
			return wrote, err
		}
		wrote = true
	}
}

// writeStoredLines writes the ticket's stored transcript lines to w, each
// with its newline; false when there are none.
func writeStoredLines(ctx context.Context, w io.Writer, s LineSource, ticketID string) (bool, error) {
	found := false
	err := s.TranscriptLines(ctx, ticketID, 0, func(_ int64, line []byte) error {
		found = true
		if _, err := w.Write(line); err != nil {
			return err
		}
		_, err := w.Write([]byte{'\n'})
		return err
	})
	return found, err
}
