package config

import (
	"os"
	"sync"
)

// Watched is a configuration file read again only when it changes: its
// identity (files are replaced by a rename), modification time or size.
// A process asks it for the providers' base URLs on every lookup. Its
// zero value is ready; it may be used from several goroutines.
type Watched struct {
	mu   sync.Mutex
	path string
	fi   os.FileInfo
	c    Config
	err  error
}

// Get returns the configuration in the file at path, read again when it
// changed (as Load reads it); a file that does not load reads as the
// zero Config (whoever loads it for its command reports the error).
func (w *Watched) Get(path string) Config {
	c, err := w.Load(path)
	if err != nil {
		return Config{}
	}
	return c
}

// Load is Get with what Load returns for a file that does not load, kept
// as long as the file stays the same.
func (w *Watched) Load(path string) (Config, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fi, err := os.Stat(path)
	if err != nil {
		fi = nil
	}
	if fi == nil || w.fi == nil || w.path != path || !sameFile(fi, w.fi) {
		c, err := Load(path)
		w.path, w.fi, w.c, w.err = path, fi, c, err
	}
	return w.c, w.err
}

// Forget drops what w holds: the next Get or Load reads the file.
func (w *Watched) Forget() {
	w.mu.Lock()
	w.fi = nil
	w.mu.Unlock()
}

// Note records c as the file at path held it when fi was read: loaded by
// someone else, so that Get need not read it again.
func (w *Watched) Note(path string, fi os.FileInfo, c Config) {
	w.mu.Lock()
	w.path, w.fi, w.c, w.err = path, fi, c, nil
	w.mu.Unlock()
}

// sameFile reports whether a and b saw the same version of a file.
func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}
