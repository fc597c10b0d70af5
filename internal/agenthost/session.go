package agenthost

import (
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/bonsai-run/bonsai/internal/session"
)

// Sessions opens the sessions of one workspace, kept in one directory.
type Sessions struct {
	// Dir holds the workspace's session files.
	Dir string
	// Cwd is recorded in the header of a new session.
	Cwd string
	// Memory keeps new sessions in memory only.
	Memory bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (s Sessions) options() session.Options { return session.Options{Now: s.Now} }

func (s Sessions) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Open resumes the session file path, or creates it when it does not
// exist; with path empty it resumes the latest session of Dir when latest
// is set, and otherwise starts a new one.
func (s Sessions) Open(path string, latest bool) (*session.File, error) {
	switch {
	case s.Memory:
	case path != "":
		return Resume(path, s.Cwd, s.options())
	case latest:
		p, err := session.Latest(s.Dir)
		if err != nil {
			return nil, err
		}
		if p != "" {
			return session.Open(p, s.options())
		}
	}
	return s.New()
}

// New starts a new session file in Dir (or one in memory).
func (s Sessions) New() (*session.File, error) {
	if s.Memory {
		return session.New(s.Cwd, s.options()), nil
	}
	return session.CreateIn(s.Dir, s.Cwd, s.options())
}

// ForkPath returns the path of a new fork file in Dir; empty when
// sessions are kept in memory.
func (s Sessions) ForkPath() string {
	if s.Memory {
		return ""
	}
	return filepath.Join(s.Dir, session.FileName(s.now(), session.RandomID()))
}

// Resume opens the session file at path, or creates it when it does not
// exist. Opening repairs tool calls a killed process left without a
// result.
func Resume(path, cwd string, opts session.Options) (*session.File, error) {
	f, err := session.Open(path, opts)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = session.Create(path, cwd, opts)
	}
	return f, err
}
