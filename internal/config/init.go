package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// InitResult says what Init created.
type InitResult struct {
	Created []string // paths created, relative to the data directory
	// Warnings are problems Init found and fixed, or could not fix, for
	// the user to read: a data directory other users could read.
	Warnings []string
}

// Private modes: transcripts hold what the agent read, the database holds
// the board, and web-token is the UI's secret. Everything Bonsai writes in
// the data directory is for its user alone, whatever the umask.
const (
	// DirMode is the mode of the data directory and its directories.
	DirMode fs.FileMode = 0o700
	// FileMode is the mode of every file Bonsai writes there.
	FileMode fs.FileMode = 0o600
)

// layout are the directories of the data directory, "" the directory
// itself first.
var layout = []string{"", "logs", "sessions", "projects", "worktrees"}

// Init creates the data directory layout, a config.json with the defaults
// and a web-token, keeping whatever already exists. A data directory other
// users can read or enter is tightened to DirMode, with a warning. It is
// safe to call on every command and from several processes at once.
func Init(d Dir) (InitResult, error) {
	var res InitResult
	for _, sub := range layout {
		p := d.Path(sub)
		if fi, err := os.Stat(p); err == nil {
			if w := tighten(p, fi); w != "" {
				res.Warnings = append(res.Warnings, w)
			}
			continue
		}
		if err := os.MkdirAll(p, DirMode); err != nil {
			return res, fmt.Errorf("create data directory: %w", err)
		}
		if sub != "" {
			res.Created = append(res.Created, sub+"/")
		}
	}
	created, err := createFile(d.ConfigFile(), FileMode, func() ([]byte, error) { return Default().MarshalFile() })
	if err != nil {
		return res, err
	}
	if created {
		res.Created = append(res.Created, "config.json")
	}
	created, err = createFile(d.WebTokenFile(), FileMode, newToken)
	if err != nil {
		return res, err
	}
	if created {
		res.Created = append(res.Created, "web-token")
	}
	return res, nil
}

// newToken returns 32 random bytes, hex encoded, with a trailing newline.
func newToken() ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return []byte(hex.EncodeToString(b) + "\n"), nil
}

// createFile writes a new file with the given contents unless it exists.
// The file appears complete or not at all: it is written to a temporary file
// and linked into place, so a concurrent Init never sees half a file and
// never overwrites another's.
func createFile(path string, mode os.FileMode, contents func() ([]byte, error)) (bool, error) {
	if _, err := os.Stat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	b, err := contents()
	if err != nil {
		return false, err
	}
	tmp, err := writeTemp(path, b, mode)
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	return true, nil
}
