package session

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Options are the injectable parts of a File.
type Options struct {
	// Now is the clock for timestamps; nil means time.Now.
	Now func() time.Time
	// NewID returns a fresh short id; nil means 8 random hex digits.
	NewID func() string
	// Mirror, when not nil, gets every line the file writes before the
	// file does (see Mirror). A fork does not inherit it.
	Mirror Mirror
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = RandomID
	}
	return o
}

// RandomID returns 8 random hex digits.
func RandomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// TimeFormat is the layout of timestamps in session files.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// File is an open session: the header, every entry, and the current leaf.
// Appends go to disk (fsynced) unless the file is in memory only. A File
// is safe for concurrent use.
type File struct {
	mu     sync.Mutex
	path   string   // "" when in memory only
	f      *os.File // nil when in memory only
	opts   Options
	header Header
	ents   []Entry
	byID   map[string]int
	leaf   string
	warns  []Warning
	closed bool
	dirty  bool // written but not fsynced
	// lines counts the lines of the file: the number of the next line
	// written, as the mirror numbers it.
	lines int64
	// broken is the error of a mirrored write that failed: every later
	// write fails with it, so the mirror never misses a line.
	broken error
}

// New returns a session kept in memory only (bonsai run --no-session).
func New(cwd string, opts Options) *File {
	opts = opts.withDefaults()
	s := &File{opts: opts, byID: make(map[string]int)}
	s.header = Header{Type: TypeSession, Version: Version, ID: opts.NewID(),
		Timestamp: opts.Now().UTC().Format(TimeFormat), Cwd: cwd}
	return s
}

// Create creates a new session file at path (its directory is created)
// and writes the header.
func Create(path, cwd string, opts Options) (*File, error) {
	s := New(cwd, opts)
	if err := s.create(path); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *File) create(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	s.path, s.f = path, f
	// The header is flushed by the first entry's fsync: a crash before it
	// leaves an empty session, which loses nothing.
	if err := s.write(s.header, false); err != nil {
		f.Close()
		return err
	}
	return nil
}

// Open opens an existing session file for appending. The leaf is the last
// entry of the file. Lines that cannot be read are reported by Warnings;
// tool calls on the leaf's path left without a result get a synthetic
// result, appended to the file.
func Open(path string, opts Options) (*File, error) {
	opts = opts.withDefaults()
	rf, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	lc := &lineCounter{r: rf}
	h, ents, warns, err := Read(lc)
	rf.Close()
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	s := &File{path: path, f: f, opts: opts, header: h, ents: ents, warns: warns,
		byID: make(map[string]int, len(ents)), lines: lc.lines}
	for i, e := range ents {
		s.byID[e.ID] = i
	}
	if len(ents) > 0 {
		s.leaf = ents[len(ents)-1].ID
	}
	if err := s.terminate(); err != nil {
		f.Close()
		return nil, err
	}
	if h.Type == "" && len(ents) == 0 {
		// An empty file (or one with nothing readable) gets a header.
		s.header = New("", opts).header
		if err := s.write(s.header, false); err != nil {
			f.Close()
			return nil, err
		}
	}
	if _, err := s.Repair(); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// terminate makes sure the file ends with a newline, so that the next
// entry does not join a line torn by a crash.
func (s *File) terminate() error {
	st, err := s.f.Stat()
	if err != nil || st.Size() == 0 {
		return err
	}
	rf, err := os.Open(s.path)
	if err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	defer rf.Close()
	var last [1]byte
	if _, err := rf.ReadAt(last[:], st.Size()-1); err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	if last[0] == '\n' {
		return nil
	}
	if _, err := s.f.Write([]byte{'\n'}); err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	// The torn line is a line of the file now, one its mirror (if any)
	// never took: the mirror refuses the next line's number, which is
	// what a file that is not the mirror's copy deserves.
	s.lines++
	return nil
}

// Path returns the file's path, "" for an in-memory session.
func (s *File) Path() string { return s.path }

// Header returns the header line.
func (s *File) Header() Header { return s.header }

// Warnings returns what was skipped or fixed while opening the file.
func (s *File) Warnings() []Warning { return append([]Warning(nil), s.warns...) }

// Leaf returns the id of the current leaf, "" when the session is empty.
func (s *File) Leaf() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leaf
}

// Entries returns every entry in file order.
func (s *File) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.ents...)
}

// Entry returns the entry with the given id.
func (s *File) Entry(id string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	if !ok {
		return Entry{}, false
	}
	return s.ents[i], true
}

// ErrUnknownEntry means an entry id is not in the session.
var ErrUnknownEntry = errors.New("no such entry")

// Branch moves the leaf to id: the next entry appended becomes a new child
// of id, starting a branch beside the entries that followed it. An empty
// id moves the leaf before the first entry.
func (s *File) Branch(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byID[id]; !ok && id != "" {
		return fmt.Errorf("branch at %s: %w", id, ErrUnknownEntry)
	}
	s.leaf = id
	return nil
}

// Append adds e as a child of the leaf, fills its id, parent and
// timestamp, writes it and fsyncs the file, and makes it the leaf. A
// model_change entry is not fsynced by itself: the next entry's fsync
// flushes it (it means nothing without a message after it).
func (s *File) Append(e Entry) (Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(e)
}

func (s *File) append(e Entry) (Entry, error) {
	sync := e.Type != TypeModelChange
	if s.closed {
		return Entry{}, errors.New("append to a closed session")
	}
	e.ID = s.newID()
	e.ParentID = s.leaf
	e.Timestamp = s.opts.Now().UTC().Format(TimeFormat)
	if !e.valid() {
		return Entry{}, fmt.Errorf("append %q entry: missing fields", e.Type)
	}
	if s.f != nil {
		if err := s.write(e, sync); err != nil {
			return Entry{}, err
		}
	}
	s.byID[e.ID] = len(s.ents)
	s.ents = append(s.ents, e)
	s.leaf = e.ID
	return e, nil
}

func (s *File) newID() string {
	for {
		id := s.opts.NewID()
		if _, taken := s.byID[id]; !taken && id != "" {
			return id
		}
	}
}

func (s *File) write(v any, sync bool) error {
	if s.broken != nil {
		return s.broken
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("write session: %w", err)
	}
	if s.opts.Mirror != nil {
		if err := s.opts.Mirror.MirrorLine(s.lines, b); err != nil {
			s.broken = &ErrMirror{Line: s.lines, Err: err}
			return s.broken
		}
	}
	b = append(b, '\n')
	if _, err := s.f.Write(b); err != nil {
		if s.opts.Mirror != nil {
			// The mirror has the line the file lacks: the file is no
			// longer its copy.
			s.broken = fmt.Errorf("write session: %w", err)
		}
		return fmt.Errorf("write session: %w", err)
	}
	s.lines++
	if !sync {
		s.dirty = true
		return nil
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("write session: %w", err)
	}
	s.dirty = false
	return nil
}

// AppendMessage appends a message entry; details (may be nil) is kept for
// user interfaces and never sent to the model. Documents and attached
// pictures are kept by reference (path or name and SHA-256), without
// their bytes.
func (s *File) AppendMessage(m llm.Message, details json.RawMessage) (Entry, error) {
	m = llm.WithoutAttachmentData(llm.WithoutDocumentData(m))
	return s.Append(Entry{Type: TypeMessage, Message: &m, Details: details})
}

// AppendModelChange records the model and thinking level used from here on.
func (s *File) AppendModelChange(model string, thinking llm.ThinkingLevel) (Entry, error) {
	return s.Append(Entry{Type: TypeModelChange, Model: model, Thinking: string(thinking)})
}

// AppendCompaction records a compaction.
func (s *File) AppendCompaction(c Compaction) (Entry, error) {
	return s.Append(Entry{Type: TypeCompaction, Compaction: &c})
}

// AppendLabel names the entry target; an empty label removes the name.
func (s *File) AppendLabel(target, label string) (Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byID[target]; !ok {
		return Entry{}, fmt.Errorf("label %s: %w", target, ErrUnknownEntry)
	}
	return s.append(Entry{Type: TypeLabel, TargetID: target, Label: label})
}

// AppendCustom records host data under customType; it is never sent to
// the model.
func (s *File) AppendCustom(customType string, data any) (Entry, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return Entry{}, fmt.Errorf("append custom entry: %w", err)
	}
	return s.Append(Entry{Type: TypeCustom, CustomType: customType, Data: b})
}

// Labels returns the current label of each labelled entry.
func (s *File) Labels() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	labels := make(map[string]string)
	for _, e := range s.ents {
		if e.Type != TypeLabel {
			continue
		}
		if e.Label == "" {
			delete(labels, e.TargetID)
		} else {
			labels[e.TargetID] = e.Label
		}
	}
	return labels
}

// Close closes the file. An in-memory session has nothing to close.
func (s *File) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.f == nil {
		return nil
	}
	var err error
	if s.dirty {
		err = s.f.Sync()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
	return err
}
