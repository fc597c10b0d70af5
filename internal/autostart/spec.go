package autostart

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf16"
)

// Name is the service's name on every platform.
const Name = "bonsai-heartbeat"

// Spec describes the service to install.
type Spec struct {
	// Binary is the absolute path of the bonsai executable.
	Binary string
	// DataDir is the absolute data directory, passed as BONSAI_DATA_DIR.
	DataDir string
	// IntervalSec is the time between beats.
	IntervalSec int
	// MaxDurationSec is the longest a beat may run; the service manager
	// stops a beat that runs much longer.
	MaxDurationSec int
	// LogFile receives the beat's standard output and error, for the
	// service managers that need a file (launchd).
	LogFile string
	// Path is the PATH the beat runs with: the installing user's, so that
	// git, rg and the project's toolchains are found as in their shell.
	// Empty leaves the service manager's own. Keys never go in a unit:
	// the beat reads them from the credential store.
	Path string
	// User is the account (DOMAIN\name) at whose logon the Windows
	// worker task starts; empty means any user's, which only an
	// administrator may register. Other services ignore it.
	User string
}

// ServiceFlag is the flag of 'bonsai heartbeat' that every unit passes,
// so that the beat records its outcome for 'bonsai service status'.
const ServiceFlag = "--service"

// Validate reports what is wrong with s.
func (s Spec) Validate() error {
	switch {
	case !filepath.IsAbs(s.Binary):
		return fmt.Errorf("binary path %q must be absolute", s.Binary)
	case !filepath.IsAbs(s.DataDir):
		return fmt.Errorf("data directory %q must be absolute", s.DataDir)
	case s.IntervalSec < 10:
		return fmt.Errorf("interval must be at least 10 seconds, got %d", s.IntervalSec)
	case s.MaxDurationSec < 60:
		return fmt.Errorf("maximum duration must be at least 60 seconds, got %d", s.MaxDurationSec)
	}
	for _, p := range []string{s.Binary, s.DataDir, s.LogFile, s.Path, s.User} {
		if strings.ContainsAny(p, "\x00\n\r") {
			return errors.New("paths must not contain control characters")
		}
	}
	return nil
}

// File is one file a service consists of.
type File struct {
	Path    string // absolute
	Content string
	// UTF16 asks for the file to be written as UTF-16LE with a byte-order
	// mark, as Task Scheduler expects of task definitions.
	UTF16 bool
}

// Bytes returns the file's content as it is written to disk.
func (f File) Bytes() []byte {
	if !f.UTF16 {
		return []byte(f.Content)
	}
	u := utf16.Encode([]rune(f.Content))
	b := make([]byte, 2, 2+2*len(u))
	b[0], b[1] = 0xff, 0xfe
	for _, c := range u {
		b = append(b, byte(c), byte(c>>8))
	}
	return b
}
