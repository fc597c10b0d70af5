package heartbeat

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/session"
)

// Transcripts is the part of the store that keeps tickets' transcripts
// line by line (store.Transcripts).
type Transcripts interface {
	// AppendTranscript stores lines as the ticket's lines numbered first,
	// first+1, …; first must be the number of lines stored (ECONFLICT).
	AppendTranscript(ctx context.Context, ticketID string, first int64, lines [][]byte) error
	// TranscriptLines walks the ticket's stored lines from number from.
	TranscriptLines(ctx context.Context, ticketID string, from int64, fn func(n int64, line []byte) error) error
	// WriteLive keeps the ticket's live file, replacing it when fresh.
	WriteLive(ctx context.Context, ticketID string, data []byte, fresh bool) error
}

// transcriptCopy prepares a ticket's transcript file from the store's
// copy (Options.Transcripts) before a run.
type transcriptCopy struct {
	store   Transcripts // nil: the file alone is the transcript
	shared  bool        // Options.SharedBoard
	timeout time.Duration
}

// prepare prepares the ticket's transcript file at path from the store,
// before a run, and returns the mirror the run's session writes through
// (nil when the file alone is the transcript) and, when a local file was
// set aside, its new name.
//
// On a shared board the store is the transcript and the file is this
// machine's cache of it: the file is rebuilt from the stored lines, and
// the run mirrors every line it writes into the store before the file.
// A file holding lines the store lacks (or other lines) does not win: it
// is kept beside as transcript.jsonl.local-<time>, and its name returned
// for the ticket to say so; the run resumes from the store.
//
// On one machine the file is the transcript. Stored lines matter only
// when it does not exist (a board copied back from a shared store by
// `bonsai store migrate`): the file is written from them.
func (c transcriptCopy) prepare(ctx context.Context, ticketID, path string) (m session.Mirror, kept string, err error) {
	if c.store == nil {
		return nil, "", nil
	}
	if !c.shared {
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
		if _, err := rebuild(ctx, c.store, ticketID, path); err != nil {
			return nil, "", fmt.Errorf("write the transcript from the store: %w", err)
		}
		return nil, "", nil
	}
	kept, err = rebuild(ctx, c.store, ticketID, path)
	if err != nil {
		return nil, "", fmt.Errorf("read the transcript from the store: %w", err)
	}
	return &storeMirror{ctx: context.WithoutCancel(ctx), store: c.store, ticket: ticketID, timeout: c.timeout}, kept, nil
}

// keptText tells the ticket that worker's copy of its transcript, with
// lines the store lacks, was set aside as kept.
func keptText(worker, kept string) string {
	return fmt.Sprintf("Worker `%s` had a copy of this ticket's transcript with lines the board's store does not hold. "+
		"The run resumes from the store's transcript; that copy was kept on that machine as `%s`.", worker, kept)
}

// rebuild writes the ticket's stored lines into the file at path (nothing
// when there are none, and no file stands there). When a file stood
// there that is not a prefix of the stored lines, it is renamed aside
// and its new name returned. The lines go to a temporary file renamed
// into place, made with the first line: a ticket whose transcript the
// store does not hold (the usual one on one machine, at its first run)
// makes no file and no fsync.
func rebuild(ctx context.Context, ts Transcripts, ticketID, path string) (kept string, err error) {
	out := &tempTranscript{dir: filepath.Dir(path)}
	defer out.discard()
	var local *prefixCheck
	f, err := os.Open(path)
	switch {
	case err == nil:
		defer f.Close()
		local = &prefixCheck{r: bufio.NewReaderSize(f, 64<<10)}
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	lines := int64(0)
	err = ts.TranscriptLines(ctx, ticketID, 0, func(n int64, line []byte) error {
		if n != lines {
			return fmt.Errorf("the store returned line %d after %d lines", n, lines)
		}
		if err := out.write(line); err != nil {
			return err
		}
		lines++
		if local != nil {
			return local.next(line)
		}
		return nil
	})
	if err == nil {
		err = out.sync()
	}
	if err != nil {
		return "", err
	}
	stale := local != nil && !local.prefix()
	if f != nil {
		f.Close() // Windows renames no open file
	}
	if stale {
		kept = path + ".local-" + time.Now().UTC().Format("20060102T150405Z")
		if err := os.Rename(path, kept); err != nil {
			return "", err
		}
	}
	if lines == 0 {
		if local != nil && kept == "" {
			// An empty file, a prefix of nothing: Open gives it a header.
			return "", nil
		}
		return kept, nil
	}
	return kept, out.rename(path)
}

// tempTranscript is rebuild's temporary file, made on its first write.
type tempTranscript struct {
	dir string
	f   *os.File
	w   *bufio.Writer
}

// write appends line and a newline, making the file first if needed.
func (t *tempTranscript) write(line []byte) error {
	if t.f == nil {
		f, err := os.CreateTemp(t.dir, ".transcript-*.tmp")
		if err != nil {
			return err
		}
		t.f, t.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	t.w.Write(line)
	return t.w.WriteByte('\n')
}

// sync flushes what was written to disk; nothing when nothing was.
func (t *tempTranscript) sync() error {
	if t.f == nil {
		return nil
	}
	if err := t.w.Flush(); err != nil {
		return err
	}
	return t.f.Sync()
}

// rename closes the file and renames it to path.
func (t *tempTranscript) rename(path string) error {
	if err := t.f.Close(); err != nil {
		return err
	}
	return os.Rename(t.f.Name(), path)
}

// discard closes and removes the file, if one was made and not renamed
// (after a rename it removes nothing).
func (t *tempTranscript) discard() {
	if t.f != nil {
		t.f.Close()
		os.Remove(t.f.Name())
	}
}

// prefixCheck compares a file with the stored lines, line by line, to
// tell whether it is a prefix of them.
type prefixCheck struct {
	r      *bufio.Reader
	ended  bool // the file ended (where the stored lines go on)
	differ bool
}

func (p *prefixCheck) next(line []byte) error {
	if p.ended || p.differ {
		return nil
	}
	for _, part := range [][]byte{line, {'\n'}} {
		buf := make([]byte, len(part))
		n, err := io.ReadFull(p.r, buf)
		if !bytes.Equal(buf[:n], part[:n]) {
			p.differ = true
			return nil
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			p.ended = true
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// prefix reports whether the file held nothing but a prefix of the lines.
func (p *prefixCheck) prefix() bool {
	if p.differ {
		return false
	}
	if p.ended {
		return true
	}
	_, err := p.r.Peek(1)
	return errors.Is(err, io.EOF)
}

// storeMirror writes a run's transcript lines into the store, one at a
// time, as its session writes them.
type storeMirror struct {
	ctx     context.Context // the run's, without its cancellation: the lines of a stopping run are stored too
	store   Transcripts
	ticket  string
	timeout time.Duration
}

// MirrorLine implements session.Mirror.
func (m *storeMirror) MirrorLine(n int64, line []byte) error {
	ctx, cancel := context.WithTimeout(m.ctx, m.timeout)
	defer cancel()
	err := m.store.AppendTranscript(ctx, m.ticket, n, [][]byte{line})
	if board.ErrorCode(err) == board.ECONFLICT {
		return fmt.Errorf("another worker wrote this ticket's transcript since this run read it, so this run stops rather than interleave with it: %w", err)
	}
	if err != nil {
		return fmt.Errorf("store the transcript: %w", err)
	}
	return nil
}
