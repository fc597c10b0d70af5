package sandbox

import (
	"fmt"
	"path/filepath"
)

// Bind is a host directory the sandbox sees at the same path, even below
// the hidden home or data directory: an engine's state for one ticket.
type Bind struct {
	// Host is the directory's absolute path; it must exist when the
	// sandbox starts.
	Host string
	// ReadOnly binds it read-only: what the runtime wrote there for the
	// command to read (an engine's prompt, hooks, plugin).
	ReadOnly bool
	// At, when set, is where the sandbox shows it instead of its own
	// path: a person's credential file in an engine's home. It must be
	// within an earlier bind, and hold a file (or nothing) the runtime
	// wrote, not a link: bwrap makes its mount point there.
	At string
}

// checkBinds returns binds with cleaned paths, refusing relative ones.
func checkBinds(binds []Bind) ([]Bind, error) {
	out := make([]Bind, len(binds))
	for i, b := range binds {
		if !filepath.IsAbs(b.Host) || b.At != "" && !filepath.IsAbs(b.At) {
			return nil, fmt.Errorf("sandbox: bind %q (at %q) is not an absolute path", b.Host, b.At)
		}
		out[i] = Bind{Host: filepath.Clean(b.Host), ReadOnly: b.ReadOnly}
		if b.At != "" {
			out[i].At = filepath.Clean(b.At)
		}
	}
	return out, nil
}

// bindArgs are the bwrap arguments of binds, which come after the hiding
// tmpfs mounts (bwrap makes their mount points in them). A read-only
// sandbox keeps them as they are: they hold an engine CLI's own state,
// not the worktree.
func bindArgs(binds []Bind) []string {
	var a []string
	for _, b := range binds {
		op := "--bind"
		if b.ReadOnly {
			op = "--ro-bind"
		}
		at := b.Host
		if b.At != "" {
			at = b.At
		}
		a = append(a, op, b.Host, at)
	}
	return a
}
