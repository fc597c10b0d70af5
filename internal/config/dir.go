package config

import (
	"errors"
	"os"
	"path/filepath"
)

// Dir is the data directory: everything Bonsai owns lives below it
// (docs/design.md §2).
type Dir string

// DefaultDir returns $BONSAI_DATA_DIR, or ~/.bonsai when it is unset.
func DefaultDir(getenv func(string) string) (Dir, error) {
	if d := getenv("BONSAI_DATA_DIR"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		return Dir(abs), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", errors.New("cannot find the data directory: set BONSAI_DATA_DIR or HOME")
		}
		home = h
	}
	return Dir(filepath.Join(home, ".bonsai")), nil
}

// Path joins elem to the data directory.
func (d Dir) Path(elem ...string) string {
	return filepath.Join(append([]string{string(d)}, elem...)...)
}

// DB is the SQLite database file.
func (d Dir) DB() string { return d.Path("bonsai.db") }

// ConfigFile is config.json.
func (d Dir) ConfigFile() string { return d.Path("config.json") }

// LockFile is the heartbeat lock.
func (d Dir) LockFile() string { return d.Path("heartbeat.lock") }

// WebTokenFile holds the web UI secret.
func (d Dir) WebTokenFile() string { return d.Path("web-token") }

// Logs is the log directory.
func (d Dir) Logs() string { return d.Path("logs") }

// Sessions is the root of the agent transcripts.
func (d Dir) Sessions() string { return d.Path("sessions") }

// Projects holds one clone per project.
func (d Dir) Projects() string { return d.Path("projects") }

// Worktrees holds one git worktree per ticket.
func (d Dir) Worktrees() string { return d.Path("worktrees") }
