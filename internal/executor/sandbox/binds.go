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
}

// checkBinds returns binds with cleaned paths, refusing relative ones.
func checkBinds(binds []Bind) ([]Bind, error) {
	out := make([]Bind, len(binds))
	for i, b := range binds {
		if !filepath.IsAbs(b.Host) {
			return nil, fmt.Errorf("sandbox: bind %q is not an absolute path", b.Host)
		}
		out[i] = Bind{Host: filepath.Clean(b.Host), ReadOnly: b.ReadOnly}
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
		a = append(a, op, b.Host, b.Host)
	}
	return a
}
