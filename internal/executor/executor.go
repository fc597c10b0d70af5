package executor

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"time"
)

// Executor runs commands and file operations inside one workspace root.
//
// Paths are relative to the root, written with forward slashes; absolute
// paths are accepted only when they point inside the root. Anything that
// resolves outside the root (through "..", an absolute path, a symlink or
// "~") fails with an error wrapping ErrOutsideRoot. Errors name paths
// relative to the root, never host paths.
type Executor interface {
	// Rel returns the clean root-relative form of path (with forward
	// slashes, "." for the root), or an error if it leaves the root
	// lexically. Symlinks are checked when the path is used.
	Rel(path string) (string, error)
	// Exec runs argv without a shell.
	Exec(ctx context.Context, argv []string, opts RunOptions) (Exit, error)
	// Shell runs script with the platform shell (bash -c, else sh -c).
	Shell(ctx context.Context, script string, opts RunOptions) (Exit, error)
	// ReadFile returns the content of a file.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// WriteFile replaces or creates a file atomically, creating parent
	// directories and keeping the mode of a file it replaces.
	WriteFile(ctx context.Context, path string, data []byte) error
	// List returns the entries of a directory sorted by name.
	List(ctx context.Context, path string) ([]Entry, error)
	// Stat describes a file or directory, following symlinks.
	Stat(ctx context.Context, path string) (Entry, error)
}

// RunOptions configures one command.
type RunOptions struct {
	// Dir is the working directory relative to the root; empty means the root.
	Dir string
	// Env holds extra KEY=VALUE pairs added after the clean environment.
	// They are passed as given: callers must not put secrets here for
	// model-driven commands.
	Env []string
	// Stdin is the command's input; nil means an empty input.
	Stdin io.Reader
	// Output receives stdout and stderr merged in the order they were
	// written. It is called from one goroutine at a time. Nil discards.
	Output io.Writer
	// Stderr, when set, receives stderr separately from Output.
	Stderr io.Writer
	// Timeout kills the command's process group after this long; zero
	// means no timeout beyond the context.
	Timeout time.Duration
	// ReadOnly runs the command where the workspace and its git metadata
	// cannot be written: the sandbox executor runs it in a second
	// sandbox of the run whose binds of them are read-only. The policy
	// sets it for commands it allowed only because they read
	// (ReadOnlyContext). The local executor cannot enforce it and runs
	// the command as any other.
	ReadOnly bool
}

// Exit describes how a command ended.
type Exit struct {
	// Code is the exit status; a command killed by signal N reports 128+N.
	Code int
	// TimedOut reports whether the command was killed by RunOptions.Timeout.
	TimedOut bool
	// Canceled reports whether the command was killed because its context ended.
	Canceled bool
	// PID is the process id, which is also the process group id.
	PID int
	// Duration is the wall time from start to exit.
	Duration time.Duration
	// Limit names the limits of the run the command met ("the sandbox
	// reached its limit of 1024 processes …"), also written at the end
	// of its output; empty when it met none or the executor has none.
	Limit string
}

// Entry describes one file or directory.
type Entry struct {
	// Name is the base name.
	Name string
	// Dir reports whether the entry is a directory (after following a symlink).
	Dir bool
	// Symlink reports whether the entry itself is a symbolic link.
	Symlink bool
	// Size is the size in bytes.
	Size int64
	// Mode holds the permission and type bits.
	Mode fs.FileMode
	// ModTime is the last modification time.
	ModTime time.Time
}

var (
	// ErrOutsideRoot means a path resolves outside the workspace root.
	ErrOutsideRoot = errors.New("path is outside the workspace")
	// ErrNUL means a path contains a NUL byte.
	ErrNUL = errors.New("path contains a NUL byte")
	// ErrHome means a path starts with "~", which is never expanded.
	ErrHome = errors.New("~ is not expanded; use a path relative to the workspace root")
	// ErrNotRegular means a file to read is a FIFO, socket or device:
	// opening a FIFO would wait for a writer forever.
	ErrNotRegular = errors.New("not a regular file")
	// ErrCommandNotFound means the program to run is not on PATH.
	ErrCommandNotFound = errors.New("command not found")
	// ErrLink means a path that must be made of real directories goes
	// through a symbolic link (or a component that is not a directory).
	ErrLink = errors.New("path goes through a symbolic link or a non-directory")
	// ErrSandboxUnavailable means commands must run in a sandbox that
	// cannot start on this machine (no bubblewrap, no user namespaces, no
	// sandbox for the system). Errors wrapping it add the reason and the
	// fix; the caller runs nothing rather than running it unsandboxed.
	ErrSandboxUnavailable = errors.New("the sandbox cannot start")
)

// PathError records a failed file operation on a root-relative path.
type PathError struct {
	Op   string // the operation: read, write, list, stat, resolve, run
	Path string // relative to the root; empty for an absolute path outside it
	Err  error  // the cause, free of host paths
}

// Error returns "op path: cause".
func (e *PathError) Error() string {
	if e.Path == "" {
		return e.Op + ": " + e.Err.Error()
	}
	return e.Op + " " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *PathError) Unwrap() error { return e.Err }
