package web

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/bonsai-run/bonsai/internal/session"
)

// On a board several machines share (Options.SharedBoard), the agent
// writing a ticket's transcript may run on another machine: the store
// holds the transcript and the live file (store.Transcripts). The server
// then keeps its own copy of each transcript it shows, and of the live
// file beside it, under its data directory, and brings the copy up to date
// from the store before each read: the pages and the activity streams read
// files by byte offset exactly as on one machine's board, where they read
// the heartbeat's session files. The stored lines are byte for byte the
// session file's, so the offsets (the browser's cursor, the live file's
// "at") agree with every machine's. Each sync costs two indexed queries:
// the lines after the copy's last one, and the live file.

// transcriptStore is the part of store.Transcripts the web UI reads.
type transcriptStore interface {
	TranscriptLines(ctx context.Context, ticketID string, from int64, fn func(n int64, line []byte) error) error
	Live(ctx context.Context, ticketID string) (data []byte, version int64, err error)
}

// transcriptCache is the server's copies of the store's transcripts.
type transcriptCache struct {
	root  string // like the sessions directory: {root}/{project}/{ticket}/transcript.jsonl
	store transcriptStore
	log   *slog.Logger

	mu    sync.Mutex
	files map[string]*cachedTranscript // by ticket ID
}

// cachedTranscript is one ticket's copy. Its fields are guarded by mu,
// held while the copy is brought up to date.
type cachedTranscript struct {
	mu      sync.Mutex
	made    bool  // this process made the file: lines are the lines it holds
	lines   int64 // how many lines the file holds
	live    bool  // the live file was synced once
	version int64 // the store's version of the live file the copy holds
	liveLen int   // the size of the live file's copy
	liveSum [sha256.Size]byte
	failing bool // the last sync failed, and was logged
}

func newTranscriptCache(root string, st transcriptStore, log *slog.Logger) *transcriptCache {
	return &transcriptCache{root: root, store: st, log: log, files: map[string]*cachedTranscript{}}
}

// sync brings the copy of a ticket's transcript and live file up to date
// and returns the transcript's path, "" for IDs that could escape the
// cache directory. A store that fails is logged (once until it answers
// again); the copy then stays as it was.
func (c *transcriptCache) sync(ctx context.Context, projectID, ticketID string) string {
	path, err := session.Layout{Root: c.root}.Transcript(projectID, ticketID)
	if err != nil {
		return ""
	}
	c.mu.Lock()
	ct := c.files[ticketID]
	if ct == nil {
		ct = &cachedTranscript{}
		c.files[ticketID] = ct
	}
	c.mu.Unlock()

	ct.mu.Lock()
	defer ct.mu.Unlock()
	err = ct.syncLines(ctx, c.store, ticketID, path)
	if err == nil {
		err = ct.syncLive(ctx, c.store, ticketID, session.LivePath(path))
	}
	switch {
	case err != nil && !ct.failing && ctx.Err() == nil:
		ct.failing = true
		c.log.Warn("read a transcript from the store; the page shows what was read before", "ticket", ticketID, "error", err)
	case err == nil:
		ct.failing = false
	}
	return path
}

// syncLines appends the lines the copy lacks. The first sync of a process
// writes the whole transcript to a new file renamed into place, since a
// file left by an earlier process may be stale; later ones append whole
// lines, which readers (reading complete lines only) never see half of.
// A failure makes the next sync start over.
func (ct *cachedTranscript) syncLines(ctx context.Context, st transcriptStore, ticketID, path string) (err error) {
	var (
		f     *os.File
		w     *bufio.Writer
		added int64
	)
	from := ct.lines
	if !ct.made {
		from = 0
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if f, err = os.OpenFile(path+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err != nil {
			return err
		}
		w = bufio.NewWriter(f)
	}
	err = st.TranscriptLines(ctx, ticketID, from, func(n int64, line []byte) error {
		if n != from+added {
			return fmt.Errorf("the store gave line %d where line %d was due", n, from+added)
		}
		if f == nil {
			var err error
			if f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
				return err
			}
			w = bufio.NewWriter(f)
		}
		w.Write(line)
		added++
		return w.WriteByte('\n')
	})
	if f != nil {
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	switch {
	case err != nil && !ct.made:
		os.Remove(path + ".tmp")
		return err
	case err != nil:
		// The file may end in part of a line, or be gone: make it again.
		ct.made = false
		return err
	case !ct.made:
		if err := os.Rename(path+".tmp", path); err != nil {
			os.Remove(path + ".tmp")
			return err
		}
		ct.made, ct.lines = true, added
	default:
		ct.lines += added
	}
	return nil
}

// syncLive copies the store's live file when its version changed: what
// was appended to the message the copy holds is appended to the copy (a
// reader follows it as it follows the heartbeat's file), a new message is
// a new file renamed into place (a reader starts it over), and none
// removes the copy.
func (ct *cachedTranscript) syncLive(ctx context.Context, st transcriptStore, ticketID, path string) error {
	data, version, err := st.Live(ctx, ticketID)
	if err != nil {
		return err
	}
	if ct.live && version == ct.version {
		return nil
	}
	switch {
	case len(data) == 0:
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	case ct.live && ct.liveLen > 0 && len(data) >= ct.liveLen && sha256.Sum256(data[:ct.liveLen]) == ct.liveSum:
		if err := appendFile(path, data[ct.liveLen:]); err != nil {
			ct.live = false // write it whole next time
			return err
		}
	default:
		if err := os.WriteFile(path+".tmp", data, 0o600); err != nil {
			return err
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			os.Remove(path + ".tmp")
			return err
		}
	}
	ct.live, ct.version, ct.liveLen, ct.liveSum = true, version, len(data), sha256.Sum256(data)
	return nil
}

func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
